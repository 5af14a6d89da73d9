/**
 * Task activation (service-interface.md, Task status; conventions §5): a Not Started task of a Released
 * ECO becomes Active once it has no unmet predecessors (a predecessor is met when Finished). Two moments
 * trigger it: the ECO is released (every ready task), and a task is finished (its ready direct
 * successors). Activation is a task update through `ctx.tx`, so the task module raises the event.
 */
import type { TxContext, TxReader } from '../hooks/types.js';
import { TYPES } from './rows.js';
import { ECO_STATUS, ECO_TASK_STATUS, type EngChangeOrderRow, type EngChangeOrderTaskPredecessorRow, type EngChangeOrderTaskRow } from './generated/rows.js';

/**
 * true when every predecessor of the task is Finished. `finishing` is a task being set to Finished in
 * this very write: validateWrite runs before its UPDATE, so the database still shows its old status.
 */
export async function predecessorsMet(db: TxReader, taskId: string, finishing?: string): Promise<boolean> {
  for (const link of await db.find<EngChangeOrderTaskPredecessorRow>(TYPES.predecessor, { taskId })) {
    if (link.predecessorTaskId === finishing) continue;
    if ((await db.get<EngChangeOrderTaskRow>(TYPES.task, link.predecessorTaskId))?.status !== ECO_TASK_STATUS.finished) return false;
  }
  return true;
}

// Line order, so events come out in the order people see the tasks (find() returns key order).
function byLine(a: EngChangeOrderTaskRow, b: EngChangeOrderTaskRow): number {
  return a.lineNo - b.lineNo;
}

async function activate(ctx: TxContext, task: EngChangeOrderTaskRow): Promise<void> {
  await ctx.tx.update(TYPES.task, task.id, { status: ECO_TASK_STATUS.active });
}

/** On release of an ECO: activates each of its Not Started tasks whose predecessors are all Finished. */
export async function activateReadyTasks(ctx: TxContext, ecoId: string): Promise<void> {
  const waiting = (await ctx.db.find<EngChangeOrderTaskRow>(TYPES.task, { engChangeOrderId: ecoId, status: ECO_TASK_STATUS.notStarted })).sort(byLine);
  for (const task of waiting) if (await predecessorsMet(ctx.db, task.id)) await activate(ctx, task);
}

/** When `finished` is being set to Finished: activates its ready direct successors, if its ECO is Released. */
export async function activateSuccessors(ctx: TxContext, finished: EngChangeOrderTaskRow): Promise<void> {
  const eco = await ctx.db.get<EngChangeOrderRow>(TYPES.eco, finished.engChangeOrderId);
  if (eco?.status !== ECO_STATUS.released) return;
  const successors: EngChangeOrderTaskRow[] = [];
  for (const link of await ctx.db.find<EngChangeOrderTaskPredecessorRow>(TYPES.predecessor, { predecessorTaskId: finished.id })) {
    const t = await ctx.db.get<EngChangeOrderTaskRow>(TYPES.task, link.taskId);
    if (t !== undefined && t.status === ECO_TASK_STATUS.notStarted && t.engChangeOrderId === finished.engChangeOrderId) successors.push(t);
  }
  for (const task of successors.sort(byLine)) if (await predecessorsMet(ctx.db, task.id, finished.id)) await activate(ctx, task);
}
