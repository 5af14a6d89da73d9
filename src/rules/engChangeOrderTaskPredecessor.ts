/**
 * Business rules of task predecessor links (conventions §5): both tasks belong to the same ECO, a task
 * is not its own predecessor, a link exists once, and no link closes a cycle (a cycle would leave its
 * tasks waiting for each other forever, so it is refused when created). Both fields are create-only,
 * so only creation can change the graph.
 */
import { BusinessRuleError } from '../errors/odata-error.js';
import { defineHooks, type TxReader } from '../hooks/types.js';
import { TYPES } from './rows.js';
import { type EngChangeOrderTaskPredecessorRow, type EngChangeOrderTaskRow } from './generated/rows.js';

const FIELD = 'predecessorTaskId';

function label(task: EngChangeOrderTaskRow): string {
  return `task ${task.lineNo} (${task.id})`;
}

/**
 * When `target` is reached from `from` by following predecessor links backwards: the chain in execution
 * order (`target` first, `from` last). Otherwise undefined.
 */
async function predecessorPath(db: TxReader, from: string, target: string): Promise<string[] | undefined> {
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    if (current === target) {
      const path = [current];
      for (let at = current; at !== from; at = cameFrom.get(at) ?? from) path.push(cameFrom.get(at) ?? from);
      return path;
    }
    for (const link of await db.find<EngChangeOrderTaskPredecessorRow>(TYPES.predecessor, { taskId: current })) {
      if (cameFrom.has(link.predecessorTaskId)) continue;
      cameFrom.set(link.predecessorTaskId, current);
      queue.push(link.predecessorTaskId);
    }
  }
  return undefined;
}

async function checkLink(db: TxReader, link: EngChangeOrderTaskPredecessorRow): Promise<void> {
  if (link.taskId === link.predecessorTaskId) {
    throw new BusinessRuleError('A task cannot be its own predecessor; choose another task of the same order as predecessorTaskId.', FIELD);
  }
  const task = await db.get<EngChangeOrderTaskRow>(TYPES.task, link.taskId);
  const predecessor = await db.get<EngChangeOrderTaskRow>(TYPES.task, link.predecessorTaskId);
  if (task === undefined || predecessor === undefined) return; // the reference checks answer for missing tasks
  if (task.engChangeOrderId !== predecessor.engChangeOrderId) {
    throw new BusinessRuleError(
      `A predecessor must be a task of the same engineering change order: ${label(predecessor)} belongs to another order than ${label(task)}.`,
      FIELD,
    );
  }
  if ((await db.find(TYPES.predecessor, { taskId: link.taskId, predecessorTaskId: link.predecessorTaskId })).length > 0) {
    throw new BusinessRuleError(`${label(predecessor)} is already a predecessor of ${label(task)}.`, FIELD);
  }
  // The new link says predecessor → task; it closes a cycle when task is already (indirectly) before predecessor.
  const path = await predecessorPath(db, link.predecessorTaskId, link.taskId);
  if (path !== undefined) {
    const lines: string[] = [];
    for (const id of path) lines.push(String((await db.get<EngChangeOrderTaskRow>(TYPES.task, id))?.lineNo ?? id));
    throw new BusinessRuleError(
      `${label(predecessor)} cannot be a predecessor of ${label(task)}: ${label(task)} already comes before it (task lines ${lines.join(' → ')}), so the link would create a cycle.`,
      FIELD,
    );
  }
}

/** The hook module of engChangeOrderTaskPredecessor. */
export const engChangeOrderTaskPredecessor = defineHooks<EngChangeOrderTaskPredecessorRow>({
  entityType: TYPES.predecessor,
  async validateWrite(ctx) {
    if (ctx.op === 'create') await checkLink(ctx.db, ctx.after);
  },
});
