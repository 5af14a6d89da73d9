/**
 * Media (Edm.Stream) properties (OData Protocol §11.4.8 / §11.2.4): GET returns the stored bytes with
 * the property's media type (204 when empty); PUT replaces them: the media type must match (415),
 * the size is capped (413), If-Match of the owning entity is required (428/412). Bytes are kept exactly.
 */
import { compile } from '../../sql/compile.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import { col, eq, param, select } from '../../sql/build.js';
import type { StoredValue } from '../../edm/values.js';
import { stampRow } from '../insert-entity.js';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors/odata-error.js';
import { rowEtag } from '../../serialize/entity-json.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { noContent } from '../responses.js';
import { readRow, recordNotFound, resolvePath } from '../resolve-path.js';
import { checkIfMatch, mediaType } from '../request-body.js';

function mediaTarget(ctx: OperationContext): { property: Extract<OperationContext['path']['target'], { kind: 'media' }>['property']; contentType: string; maxBytes: number } {
  const t = ctx.path.target;
  if (t.kind !== 'media' || t.property.storage.kind !== 'media') throw new Error('not a media target');
  return { property: t.property, contentType: t.property.storage.contentType, maxBytes: t.property.storage.maxBytes };
}

/** GET of a media property. */
export function readMedia(ctx: OperationContext): ODataResponse {
  const { property, contentType } = mediaTarget(ctx);
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const row = resolved.reachable ? readRow(ctx.svc, type, ctx.company?.id, resolved.conditions) : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const q = select({
    columns: [{ expr: col('m', property.name), alias: 'content' }],
    from: { kind: 'table', table: type.table, alias: 'm' },
    where: eq(col('m', type.key.name), param(row[type.key.name] as string)),
  });
  const content = ctx.svc.db.get(compile(q, sqliteDialect))?.['content'];
  const etag = rowEtag(row);
  if (content === null || content === undefined || (Buffer.isBuffer(content) && content.length === 0)) return noContent({ ETag: etag });
  const body = Buffer.isBuffer(content) ? content : Buffer.from(String(content), 'utf8');
  const ct = contentType.startsWith('text/') ? `${contentType}; charset=utf-8` : contentType;
  return { status: 200, headers: { 'Content-Type': ct, ETag: etag }, body };
}

/** PUT of a media property: replaces its bytes; 204. */
export async function writeMedia(ctx: OperationContext): Promise<ODataResponse> {
  const { property, contentType, maxBytes } = mediaTarget(ctx);
  const sent = mediaType(ctx.req.headers['content-type']);
  if (sent !== contentType) {
    throw new UnsupportedMediaTypeError(`'${property.name}' accepts only ${contentType}; the request sent '${ctx.req.headers['content-type'] ?? '(no Content-Type)'}'.`);
  }
  const body = ctx.req.body ?? Buffer.alloc(0);
  if (body.length > maxBytes) throw new PayloadTooLargeError(maxBytes);
  const { svc } = ctx;
  const etag = svc.db.transaction(() => {
    const resolved = resolvePath(svc, ctx.path.steps, ctx.company?.id);
    const type = resolved.step.type;
    const row = resolved.reachable ? readRow(svc, type, ctx.company?.id, resolved.conditions) : undefined;
    if (row === undefined) throw recordNotFound(type, resolved.conditions);
    checkIfMatch(ctx.req, rowEtag(row), true);
    const changes = new Map<string, StoredValue>([[property.name, body.length === 0 ? null : body]]);
    stampRow(svc, type, changes, new Date());
    const set = [...changes.entries()].map(([column, v]) => ({ column, value: param(v) }));
    const key = row[type.key.name] as string;
    svc.db.run(compile({ kind: 'update', table: type.table, set, where: eq(col(type.table, type.key.name), param(key)) }, sqliteDialect));
    const after = readRow(svc, type, ctx.company?.id, [{ property: type.key.name, value: key }]);
    return after === undefined ? undefined : rowEtag(after);
  });
  return noContent(etag === undefined ? {} : { ETag: etag });
}
