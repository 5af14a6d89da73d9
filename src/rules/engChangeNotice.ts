/**
 * Business rules of the engineering change notice (service-interface.md; conventions §5):
 * - approval: status becomes Approved only from New or Pending Approval (Rejected and Closed are final);
 * - "where applicable": sourceStatus only for source type Prod. Order, sourceSalesDocumentType only for
 *   Sales Quote and Sales Order;
 * - the bound action createEngChangeOrder: from an Approved ECN only, creates an ECO in status New with
 *   the ECN's number and a description from its number and reason. Calling it again creates another ECO
 *   (one notice may need several change orders; README documents this).
 * The number series and the computed fields (changeReasonDescription, bomExists, bomCommentExists) are
 * declared in metadata/entities/engChangeNotice.json, not here.
 */
import { BusinessRuleError } from '../errors/odata-error.js';
import { defineHooks, type ActionContext, type Row } from '../hooks/types.js';
import { isBlank, shown, TYPES } from './rows.js';
import { ECN_STATUS, type EngChangeNoticeRow } from './generated/rows.js';

const PROD_ORDER = 'Prod_x002E__x0020_Order';
const SALES_TYPES: readonly string[] = ['Sales_x0020_Quote', 'Sales_x0020_Order'];
const SOURCE_FIELDS: readonly string[] = ['sourceType', 'sourceStatus', 'sourceSalesDocumentType'];
const APPROVABLE_FROM: readonly string[] = [ECN_STATUS.new, ECN_STATUS.pendingApproval];

/** 400 when a source field is filled for a source type it does not apply to. */
function checkWhereApplicable(ecn: EngChangeNoticeRow): void {
  const type = (): string => shown(ecn.sourceType);
  if (!isBlank(ecn.sourceStatus) && ecn.sourceType !== PROD_ORDER) {
    throw new BusinessRuleError(
      `sourceStatus applies only to the source type Prod. Order, but this ECN's source type is '${type()}'. Leave sourceStatus blank ("_x0020_") or change sourceType.`,
      'sourceStatus',
    );
  }
  if (!isBlank(ecn.sourceSalesDocumentType) && !SALES_TYPES.includes(ecn.sourceType)) {
    throw new BusinessRuleError(
      `sourceSalesDocumentType applies only to the source types Sales Quote and Sales Order, but this ECN's source type is '${type()}'. Leave sourceSalesDocumentType blank ("_x0020_") or change sourceType.`,
      'sourceSalesDocumentType',
    );
  }
}

/** 400 when an ECN in a final state (Rejected, Closed) is set to Approved. */
function checkApproval(before: EngChangeNoticeRow, after: EngChangeNoticeRow): void {
  if (after.status !== ECN_STATUS.approved || before.status === ECN_STATUS.approved) return;
  if (APPROVABLE_FROM.includes(before.status)) return;
  throw new BusinessRuleError(
    `ECN ${before.number} cannot be approved because its status is ${shown(before.status)}; only a New or Pending Approval notice can be approved. Create a new ECN for the change instead.`,
    'status',
  );
}

/** POST .../engChangeNotices({id})/Microsoft.NAV.createEngChangeOrder: the new ECO (200). */
async function createEngChangeOrder(ctx: ActionContext<EngChangeNoticeRow>): Promise<Row> {
  const ecn = ctx.entity;
  if (ecn.status !== ECN_STATUS.approved) {
    throw new BusinessRuleError(
      `An engineering change order can only be created from an Approved engineering change notice; ECN ${ecn.number} has status ${shown(ecn.status)}. Approve it first.`,
      'status',
    );
  }
  const reason = ecn.changeReasonDescription ?? ecn.changeReasonCode;
  const description = `${ecn.number}${reason === null ? '' : `: ${reason}`}`.slice(0, 100);
  return ctx.tx.create(TYPES.eco, { engChangeNoticeNumber: ecn.number, description });
}

/** The hook module of engChangeNotice. */
export const engChangeNotice = defineHooks<EngChangeNoticeRow>({
  entityType: TYPES.ecn,
  // An update of other fields (a drawing number) runs no rule, so it need not read the ECN first.
  validatesOnUpdate: ['status', ...SOURCE_FIELDS],
  validateWrite(ctx) {
    if (ctx.op === 'delete') return;
    // On update only when a source field changes, so an old row never blocks unrelated edits.
    if (ctx.op === 'create' || SOURCE_FIELDS.some((f) => ctx.changed.has(f))) checkWhereApplicable(ctx.after);
    if (ctx.op === 'update' && ctx.changed.has('status')) checkApproval(ctx.before, ctx.after);
  },
  actions: { createEngChangeOrder },
});
