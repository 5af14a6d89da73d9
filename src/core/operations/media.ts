/**
 * Media (Edm.Stream) properties (OData Protocol §11.4.8 / §11.2.4): GET returns the stored bytes with
 * the property's media type (204 when empty); PUT replaces them: the media type must match (415),
 * the size is capped (413), If-Match of the owning entity is required (428/412). Bytes are kept exactly.
 * Text media are served as `charset=utf-8`, so a PUT must send UTF-8: another declared charset is a
 * 415 and bytes that are not UTF-8 a 400 (else they would come back mislabelled or garbled).
 */
import { compile } from '../../sql/compile.js';
import { col, eq, param, select } from '../../sql/build.js';
import type { StoredValue } from '../../edm/values.js';
import { BodyValidationError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors/odata-error.js';
import { rowEtag } from '../../serialize/entity-json.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { noContent } from '../responses.js';
import { loadTarget, readRow, recordNotFound, resolvePath } from '../../store/resolve-path.js';
import { mediaType } from '../request-body.js';
import { checkPreconditions, requireIfMatch } from '../preconditions.js';
import { beforeWrite, writeIdentity } from './write-hooks.js';

function mediaTarget(ctx: OperationContext): { property: Extract<OperationContext['path']['target'], { kind: 'media' }>['property']; contentType: string; maxBytes: number } {
  const t = ctx.path.target;
  if (t.kind !== 'media' || t.property.storage.kind !== 'media') throw new Error('not a media target');
  return { property: t.property, contentType: t.property.storage.contentType, maxBytes: t.property.storage.maxBytes };
}

const UTF8_CHARSETS: ReadonlySet<string> = new Set(['utf-8', 'utf8', 'us-ascii']);

/** 415 for a declared charset other than UTF-8 (or its subset US-ASCII), 400 for bytes that are not UTF-8. */
function checkUtf8Text(name: string, header: string | undefined, body: Buffer): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) {
    throw new UnsupportedMediaTypeError(`'${name}' keeps its text as UTF-8, but the request declared charset=${charset}; send the text encoded as UTF-8 (charset=utf-8).`);
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new BodyValidationError('BadRequest', `The body is not valid UTF-8 text; '${name}' keeps its text as UTF-8, so encode it as UTF-8.`, name);
  }
}

/** GET of a media property. */
export async function readMedia(ctx: OperationContext): Promise<ODataResponse> {
  const { property, contentType } = mediaTarget(ctx);
  const db = ctx.svc.engine.db;
  const resolved = await resolvePath(ctx.svc, db, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const row = resolved.reachable ? await readRow(ctx.svc, db, type, ctx.company?.id, resolved.conditions) : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const q = select({
    columns: [{ expr: col('m', property.name), alias: 'content' }],
    from: { kind: 'table', table: type.table, alias: 'm' },
    where: eq(col('m', type.key.name), param(row[type.key.name] as string)),
  });
  const content = (await db.get(compile(q, ctx.svc.engine.dialect)))?.['content'];
  const etag = rowEtag(row);
  if (content === null || content === undefined || (Buffer.isBuffer(content) && content.length === 0)) return noContent({ ETag: etag });
  const body = Buffer.isBuffer(content) ? content : Buffer.from(String(content), 'utf8');
  const ct = contentType.startsWith('text/') ? `${contentType}; charset=utf-8` : contentType;
  return { status: 200, headers: { 'Content-Type': ct, ETag: etag }, body };
}

/** PUT of a media property: replaces its bytes (an update of the owning entity, hooks included); 204. */
export async function writeMedia(ctx: OperationContext): Promise<ODataResponse> {
  const { property, contentType, maxBytes } = mediaTarget(ctx);
  requireIfMatch(ctx.preconditions);
  const sent = mediaType(ctx.req.headers['content-type']);
  if (sent !== contentType) {
    throw new UnsupportedMediaTypeError(`'${property.name}' accepts only ${contentType}; the request sent '${ctx.req.headers['content-type'] ?? '(no Content-Type)'}'.`);
  }
  const body = ctx.req.body ?? Buffer.alloc(0);
  if (body.length > maxBytes) throw new PayloadTooLargeError(maxBytes);
  if (contentType.startsWith('text/')) checkUtf8Text(property.name, ctx.req.headers['content-type'], body);
  const { svc } = ctx;
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) throw new Error('empty path');
  const changes = await beforeWrite(ctx, type, 'update', new Map<string, StoredValue>([[property.name, body.length === 0 ? null : body]]));
  const identity = writeIdentity(ctx);
  const etag = await ctx.writes.run(svc, identity, async (session) => {
    const target = await loadTarget(svc, session.tx, ctx.path.steps, identity.companyId);
    checkPreconditions(ctx.preconditions, rowEtag(target.row), true);
    return rowEtag(await session.update(target.type, target.row, changes));
  });
  return noContent({ ETag: etag });
}
