/**
 * The sub-order tree of engineering change orders (conventions §5): a task's subEngChangeOrderNo names
 * another ECO, whose parentEngChangeOrderNo then names the task's ECO. Each ECO has at most one parent,
 * so the orders form a forest; linking must keep it one (no ECO twice, no cycle). Used by the task and
 * ECO hook modules.
 */
import { BusinessRuleError } from '../errors/odata-error.js';
import type { TxContext, TxReader } from '../hooks/types.js';
import { isBlank, TYPES } from './rows.js';
import { type EngChangeOrderRow, type EngChangeOrderTaskRow } from './generated/rows.js';

const FIELD = 'subEngChangeOrderNo';

/** The ECO with this number in the request's company, if any. */
export async function ecoByNumber(db: TxReader, number: string): Promise<EngChangeOrderRow | undefined> {
  return (await db.find<EngChangeOrderRow>(TYPES.eco, { number }))[0];
}

/** The ECO's ancestors, nearest first. Stops at a repeated number, so damaged data cannot loop forever. */
export async function ancestorsOf(db: TxReader, eco: EngChangeOrderRow): Promise<EngChangeOrderRow[]> {
  const chain: EngChangeOrderRow[] = [];
  const seen = new Set([eco.number]);
  let parentNo = eco.parentEngChangeOrderNo;
  while (parentNo !== null && !isBlank(parentNo) && !seen.has(parentNo)) {
    seen.add(parentNo);
    const parent = await ecoByNumber(db, parentNo);
    if (parent === undefined) break;
    chain.push(parent);
    parentNo = parent.parentEngChangeOrderNo;
  }
  return chain;
}

/** The sub order `number` may become a child of `owner`, or a 400 saying why not. */
async function checkLinkable(db: TxReader, owner: EngChangeOrderRow, number: string): Promise<EngChangeOrderRow> {
  const sub = await ecoByNumber(db, number);
  if (sub === undefined) {
    throw new BusinessRuleError(`There is no engineering change order ${number}; ${FIELD} must name an existing order of this company.`, FIELD);
  }
  if (sub.id === owner.id) {
    throw new BusinessRuleError(`A task of ${owner.number} cannot name ${owner.number} itself as its sub order: that would be a circular reference.`, FIELD);
  }
  const above = await ancestorsOf(db, owner);
  if (above.some((a) => a.id === sub.id)) {
    const path = [owner, ...above].map((e) => e.number).join(' → ');
    throw new BusinessRuleError(
      `${number} cannot be a sub order of ${owner.number}: it is already above ${owner.number} in the same order tree (${path}), so the link would be circular.`,
      FIELD,
    );
  }
  if (sub.parentEngChangeOrderNo !== null && !isBlank(sub.parentEngChangeOrderNo)) {
    throw new BusinessRuleError(
      `${number} is already a sub order of ${sub.parentEngChangeOrderNo}; an order can be linked from one task only. Clear ${FIELD} on the task of ${sub.parentEngChangeOrderNo} first.`,
      FIELD,
    );
  }
  return sub;
}

/** Makes the ECO `newNo` a sub order of the task's ECO and releases `oldNo` (either may be blank). */
export async function relinkSubOrder(ctx: TxContext, task: EngChangeOrderTaskRow, oldNo: string | null, newNo: string | null): Promise<void> {
  const owner = await ctx.db.get<EngChangeOrderRow>(TYPES.eco, task.engChangeOrderId);
  if (owner === undefined) return; // the reference check has already refused a task without its order
  const sub = newNo === null || isBlank(newNo) ? undefined : await checkLinkable(ctx.db, owner, newNo);
  if (oldNo !== null && !isBlank(oldNo)) await unparent(ctx, owner, oldNo);
  if (sub !== undefined) await ctx.tx.update(TYPES.eco, sub.id, { parentEngChangeOrderNo: owner.number });
}

/** Clears the parent of sub order `number` when it is `owner`'s (a link already gone elsewhere is left alone). */
async function unparent(ctx: TxContext, owner: EngChangeOrderRow, number: string): Promise<void> {
  const sub = await ecoByNumber(ctx.db, number);
  if (sub !== undefined && sub.parentEngChangeOrderNo === owner.number) await ctx.tx.update(TYPES.eco, sub.id, { parentEngChangeOrderNo: null });
}

/** Deletes the sub order a task links to; its tasks and their own sub orders follow through the ECO hooks. */
export async function deleteLinkedSubOrder(ctx: TxContext, task: EngChangeOrderTaskRow): Promise<void> {
  if (task.subEngChangeOrderNo === null || isBlank(task.subEngChangeOrderNo)) return;
  const owner = await ctx.db.get<EngChangeOrderRow>(TYPES.eco, task.engChangeOrderId);
  const sub = await ecoByNumber(ctx.db, task.subEngChangeOrderNo);
  // Only a sub order that really hangs below this task's order: a stale number must not delete an unrelated ECO.
  if (owner !== undefined && sub !== undefined && sub.parentEngChangeOrderNo === owner.number) await ctx.tx.delete(TYPES.eco, sub.id);
}

/** The sub orders directly below an ECO. */
export function subOrdersOf(db: TxReader, eco: EngChangeOrderRow): Promise<EngChangeOrderRow[]> {
  return db.find<EngChangeOrderRow>(TYPES.eco, { parentEngChangeOrderNo: eco.number });
}

/** The tasks (of any ECO) whose link names this ECO. */
export function tasksLinkingTo(db: TxReader, eco: EngChangeOrderRow): Promise<EngChangeOrderTaskRow[]> {
  return db.find<EngChangeOrderTaskRow>(TYPES.task, { subEngChangeOrderNo: eco.number });
}
