/**
 * Business rules of the ECO task (service-interface.md, engChangeOrderTask rules 1–4; conventions §5):
 * - workCenterGroupCode and subEngChangeOrderNo are mutually exclusive on one task line;
 * - subEngChangeOrderNo links a sub order (its parentEngChangeOrderNo is set; a changed or cleared link
 *   releases the old one); unknown orders, the task's own order, its ancestors and orders that already
 *   have a parent are refused (sub-orders.ts);
 * - deleting the task deletes the linked sub order, its tasks and their own sub orders;
 * - finishing a task activates its ready successors; a task becoming Active raises
 *   EngChangeOrderTaskActivated (one event per activation, whoever activated it).
 * assignedEmail is a computed field declared in metadata/entities/engChangeOrderTask.json.
 */
import { BusinessRuleError } from '../errors/odata-error.js';
import { defineHooks, type ValidateWriteContext } from '../hooks/types.js';
import { isBlank, TASK_ACTIVATED_EVENT, TYPES } from './rows.js';
import { ECO_TASK_STATUS, type EngChangeOrderTaskRow } from './generated/rows.js';
import { deleteLinkedSubOrder, relinkSubOrder } from './sub-orders.js';
import { activateSuccessors } from './task-activation.js';

/** 400 when both fields are set after the write; `target` is the one this write set, when it set one. */
function checkExclusive(after: EngChangeOrderTaskRow, changed: ReadonlySet<string> | undefined): void {
  if (isBlank(after.workCenterGroupCode) || isBlank(after.subEngChangeOrderNo)) return;
  const target = changed?.has('workCenterGroupCode') === true && changed.has('subEngChangeOrderNo') !== true ? 'workCenterGroupCode' : 'subEngChangeOrderNo';
  throw new BusinessRuleError(
    `workCenterGroupCode and subEngChangeOrderNo cannot both be set on one task line (they are ${after.workCenterGroupCode} and ${after.subEngChangeOrderNo}); clear one of them.`,
    target,
  );
}

function statusBecame(ctx: ValidateWriteContext<EngChangeOrderTaskRow>, status: string): boolean {
  if (ctx.op === 'delete') return false;
  return ctx.after.status === status && (ctx.op === 'create' || ctx.before.status !== status);
}

/** The hook module of engChangeOrderTask. */
export const engChangeOrderTask = defineHooks<EngChangeOrderTaskRow>({
  entityType: TYPES.task,
  async validateWrite(ctx) {
    if (ctx.op === 'delete') {
      await deleteLinkedSubOrder(ctx, ctx.before);
      return;
    }
    checkExclusive(ctx.after, ctx.op === 'update' ? ctx.changed : undefined);
    const oldNo = ctx.op === 'update' ? ctx.before.subEngChangeOrderNo : null;
    if ((oldNo ?? '') !== (ctx.after.subEngChangeOrderNo ?? '')) await relinkSubOrder(ctx, ctx.after, oldNo, ctx.after.subEngChangeOrderNo);
    if (statusBecame(ctx, ECO_TASK_STATUS.active)) ctx.emit(TASK_ACTIVATED_EVENT, { engChangeOrderTaskId: ctx.after.id });
    if (ctx.op === 'update' && statusBecame(ctx, ECO_TASK_STATUS.finished)) await activateSuccessors(ctx, ctx.after);
  },
});
