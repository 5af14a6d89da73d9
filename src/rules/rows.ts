/**
 * The rows of the ECN/ECO model as the rule modules see them (stored form, metadata/entities/*.json),
 * and the enum members the rules compare against, as stored: OData-encoded names (conventions §2).
 */
import type { Row } from '../hooks/types.js';
import { decodeODataName } from '../edm/encode-name.js';

/** engChangeNotice, the fields the rules read. */
export interface EcnRow extends Row {
  readonly id: string;
  readonly number: string;
  readonly status: string;
  readonly changeReasonCode: string | null;
  readonly changeReasonDescription: string | null;
  readonly sourceType: string;
  readonly sourceStatus: string;
  readonly sourceSalesDocumentType: string;
}

/** engChangeOrder, the fields the rules read. */
export interface EcoRow extends Row {
  readonly id: string;
  readonly number: string;
  readonly status: string;
  readonly parentEngChangeOrderNo: string | null;
}

/** engChangeOrderTask, the fields the rules read. */
export interface TaskRow extends Row {
  readonly id: string;
  readonly engChangeOrderId: string;
  readonly lineNo: number;
  readonly status: string;
  readonly subEngChangeOrderNo: string | null;
  readonly workCenterGroupCode: string | null;
}

/** engChangeOrderTaskPredecessor: `predecessorTaskId` must be Finished before `taskId` starts. */
export interface PredecessorRow extends Row {
  readonly id: string;
  readonly taskId: string;
  readonly predecessorTaskId: string;
}

/** The blank enum member ` `, as stored. */
export const BLANK = '_x0020_';

/** ecnStatus members (conventions §5). */
export const ECN_STATUS = { new: 'New', pendingApproval: 'Pending_x0020_Approval', approved: 'Approved', rejected: 'Rejected', closed: 'Closed' } as const;

/** ecoStatus members. */
export const ECO_STATUS = { new: 'New', released: 'Released', finished: 'Finished' } as const;

/** ecoTaskStatus members: Active is "activated", Finished is "completed" (conventions §5). */
export const TASK_STATUS = { notStarted: 'Not_x0020_Started', active: 'Active', finished: 'Finished' } as const;

/** The business event a task activation raises (service-interface.md, Events). */
export const TASK_ACTIVATED_EVENT = 'EngChangeOrderTaskActivated';

/** Entity type names, as the tx helpers take them. */
export const TYPES = { ecn: 'engChangeNotice', eco: 'engChangeOrder', task: 'engChangeOrderTask', predecessor: 'engChangeOrderTaskPredecessor' } as const;

/** true for a value a person would call empty: null, '' or the blank enum member. */
export function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === BLANK || (typeof value === 'string' && value.trim() === '');
}

/** An encoded enum member as a person reads it (`Pending_x0020_Approval` → `Pending Approval`). */
export function shown(member: string): string {
  return decodeODataName(member);
}
