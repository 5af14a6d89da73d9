/**
 * Business rules of the ECN (service-interface.md, conventions §5). The bound action
 * createEngChangeOrder creates an ECO from an Approved ECN: number from the ECO series, the ECN's
 * number, description and reason copied, status New; answers 200 with the ECO. Calling it again creates
 * another ECO (an ECN may need several change orders; README documents this).
 */
import type { ActionHandler } from '../core/service-context.js';
import { BusinessRuleError } from '../errors/odata-error.js';
import { insertEntity } from '../core/insert-entity.js';
import { readRow, recordNotFound, resolvePath } from '../core/resolve-path.js';
import { checkIfMatch } from '../core/request-body.js';
import { rowEtag } from '../serialize/entity-json.js';
import { entityResponse } from '../core/responses.js';
import { contextUrl } from '../serialize/context-url.js';
import { negotiateJson } from '../core/format.js';
import type { StoredValue } from '../edm/values.js';

const APPROVED = 'Approved';

/** POST .../engChangeNotices({id})/Microsoft.NAV.createEngChangeOrder */
export const createEngChangeOrder: ActionHandler = (ctx, action) => {
  const { svc } = ctx;
  const eco = action.returnType;
  if (eco === undefined) throw new Error('createEngChangeOrder must declare its return type');
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const companyId = ctx.company?.id;
  const created = svc.db.transaction(() => {
    const resolved = resolvePath(svc, ctx.path.steps, companyId);
    const type = resolved.step.type;
    const ecn = resolved.reachable ? readRow(svc, type, companyId, resolved.conditions) : undefined;
    if (ecn === undefined) throw recordNotFound(type, resolved.conditions);
    checkIfMatch(ctx.req, rowEtag(ecn), false);
    if (ecn['status'] !== APPROVED) {
      throw new BusinessRuleError(
        `An engineering change order can only be created from an Approved engineering change notice; ECN ${String(ecn['number'])} has status ${String(ecn['status'])}.`,
        'status',
      );
    }
    const reason = ecn['changeReasonDescription'] ?? ecn['changeReasonCode'];
    const description = `${String(ecn['number'])}${reason === null || reason === undefined ? '' : `: ${String(reason)}`}`.slice(0, 100);
    const values = new Map<string, StoredValue>([
      ['engChangeNoticeNumber', ecn['number'] as StoredValue],
      ['description', description],
    ]);
    return insertEntity(svc, eco, companyId, values, { userId: ctx.principal.userId, now: new Date() });
  });
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, eco.entitySet, undefined, true);
  return entityResponse(200, eco, created, context, { format, links: ctx.links });
};
