/**
 * Business rules of the engineering change order (service-interface.md, ECO status; conventions §5):
 * - release: setting status to Released activates every Not Started task with no unmet predecessors;
 * - delete: the order's tasks are deleted through their own hook (so each takes its linked sub order,
 *   recursively), and a task elsewhere that linked this order as its sub order is unlinked;
 * - number: an order in a sub-order tree keeps its number (the links are by number).
 * The change description media field is generic (src/core/operations/media.ts).
 */
import { BusinessRuleError } from '../errors/odata-error.js';
import { defineHooks, type TxContext } from '../hooks/types.js';
import { isBlank, TYPES } from './rows.js';
import { ECO_STATUS, type EngChangeOrderRow, type EngChangeOrderTaskRow } from './generated/rows.js';
import { subOrdersOf, tasksLinkingTo } from './sub-orders.js';
import { activateReadyTasks } from './task-activation.js';

/** 400 when a linked order is renumbered: its parent, its sub orders and the linking task name it by number. */
async function checkRenumber(ctx: TxContext, before: EngChangeOrderRow): Promise<void> {
  const linked =
    !isBlank(before.parentEngChangeOrderNo) || (await subOrdersOf(ctx.db, before)).length > 0 || (await tasksLinkingTo(ctx.db, before)).length > 0;
  if (!linked) return;
  throw new BusinessRuleError(
    `The number of ${before.number} cannot change while it belongs to a sub-order tree (orders and tasks refer to it by number). Unlink its sub orders and its parent task first.`,
    'number',
  );
}

async function deleteDependants(ctx: TxContext, eco: EngChangeOrderRow): Promise<void> {
  // A task elsewhere still naming this order would point at nothing, or at a later order given the same number.
  for (const task of await tasksLinkingTo(ctx.db, eco)) {
    if (task.engChangeOrderId !== eco.id) await ctx.tx.update(TYPES.task, task.id, { subEngChangeOrderNo: null });
  }
  // Through ctx.tx, not the foreign key's cascade, so each task's own rule deletes its sub order.
  for (const task of await ctx.db.find<EngChangeOrderTaskRow>(TYPES.task, { engChangeOrderId: eco.id })) await ctx.tx.delete(TYPES.task, task.id);
}

/** The hook module of engChangeOrder. */
export const engChangeOrder = defineHooks<EngChangeOrderRow>({
  entityType: TYPES.eco,
  async validateWrite(ctx) {
    if (ctx.op === 'delete') {
      await deleteDependants(ctx, ctx.before);
      return;
    }
    if (ctx.op !== 'update') return;
    if (ctx.changed.has('number') && ctx.after.number !== ctx.before.number) await checkRenumber(ctx, ctx.before);
    if (ctx.after.status === ECO_STATUS.released && ctx.before.status !== ECO_STATUS.released) await activateReadyTasks(ctx, ctx.after.id);
  },
});
