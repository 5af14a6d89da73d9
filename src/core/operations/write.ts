/**
 * POST (create), PATCH (update) and DELETE on entity sets and navigations (OData Protocol §11.4).
 * Each write validates the body first, then runs one synchronous transaction: resolve the path,
 * load and check the ETag, fill defaults, check references and uniqueness, write, read back.
 */
import { compile } from '../../sql/compile.js';
import { sqliteDialect } from '../../sql/sqlite-dialect.js';
import { col, eq, param } from '../../sql/build.js';
import type { EntityType, Property } from '../../edm/model.js';
import { jsonToStored, type StoredValue } from '../../edm/values.js';
import type { DbRow } from '../../db/database.js';
import { BodyValidationError, MethodNotAllowedError } from '../../errors/odata-error.js';
import { contextPath, contextUrl } from '../../serialize/context-url.js';
import { rowEtag } from '../../serialize/entity-json.js';
import { negotiateJson } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { createdHeaders, entityResponse, noContent } from '../responses.js';
import { readRow, recordNotFound, resolvePath } from '../resolve-path.js';
import { insertEntity, stampRow } from '../insert-entity.js';
import { checkReferences, checkRequired, checkUnique, type RowValues } from '../write-checks.js';
import { checkIfMatch, preferReturn, readJsonBody } from '../request-body.js';

function storedValues(values: Map<Property, unknown>): RowValues {
  const row: RowValues = new Map();
  for (const [p, v] of values) row.set(p.name, jsonToStored(v, p));
  return row;
}

function notAllowed(type: EntityType, what: string, allowed: string[]): MethodNotAllowedError {
  return new MethodNotAllowedError(`${what} is not allowed on ${type.entitySet}: records of this kind cannot be ${what === 'POST' ? 'created' : 'deleted'} through the API.`, allowed);
}

/** POST to a collection: creates an entity; 201 with it (or 204 with `Prefer: return=minimal`). */
export async function create(ctx: OperationContext): Promise<ODataResponse> {
  const { svc } = ctx;
  const step = ctx.path.steps[ctx.path.steps.length - 1];
  if (step === undefined) throw new Error('empty path');
  const type = step.type;
  if (!type.capabilities.insertable) throw notAllowed(type, 'POST', ['GET']);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const given = svc.validator.validate(type, readJsonBody(ctx.req), 'create');
  const row = storedValues(given);
  const companyId = ctx.company?.id;
  const now = new Date();

  const created = svc.db.transaction((): { row: DbRow; keys: StoredValue[] } => {
    const resolved = resolvePath(svc, ctx.path.steps, companyId);
    // Creating through a navigation sets the reference to the parent.
    for (const c of resolved.conditions) {
      const sent = row.get(c.property);
      if (sent !== undefined && sent !== c.value) {
        throw new BodyValidationError('BadRequest_InvalidOperation', `The field '${c.property}' must be ${String(c.value)} (the parent in the URL) or left out.`, c.property);
      }
      row.set(c.property, c.value);
    }
    const stored = insertEntity(svc, type, companyId, row, { userId: ctx.principal.userId, now });
    return { row: stored, keys: [...resolved.keys, stored[type.key.name] as StoredValue] };
  });

  const opts = { format, links: ctx.links };
  const headers = createdHeaders(type, created.row, opts);
  if (preferReturn(ctx.req) === 'minimal') return noContent({ ...headers, ETag: rowEtag(created.row), 'Preference-Applied': 'return=minimal' });
  const steps = ctx.path.steps.map((s, i) => (i === ctx.path.steps.length - 1 ? { ...s, single: true } : s));
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(steps, created.keys.slice(0, -1)), undefined, true);
  return entityResponse(201, type, created.row, context, opts, headers);
}

/** Loads the entity a path addresses inside a transaction, or 404. */
function loadTarget(ctx: OperationContext): { type: EntityType; row: DbRow; keys: StoredValue[] } {
  const resolved = resolvePath(ctx.svc, ctx.path.steps, ctx.company?.id);
  const type = resolved.step.type;
  const row = resolved.reachable ? readRow(ctx.svc, type, ctx.company?.id, resolved.conditions) : undefined;
  if (row === undefined) throw recordNotFound(type, resolved.conditions);
  const keys = [...resolved.keys];
  if (resolved.step.key === undefined) keys.push(row[type.key.name] as StoredValue);
  return { type, row, keys };
}

/** PATCH of one entity: If-Match required (428/412); 200 with the entity, or 204 with return=minimal. */
export async function update(ctx: OperationContext): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) throw new Error('empty path');
  if (!type.capabilities.updatable) throw new MethodNotAllowedError(`PATCH is not allowed on ${type.entitySet}: its records are read-only through the API.`, ['GET']);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const given = svc.validator.validate(type, readJsonBody(ctx.req), 'update');
  const changes = storedValues(given);
  const companyId = ctx.company?.id;
  const now = new Date();

  const result = svc.db.transaction(() => {
    const target = loadTarget(ctx);
    checkIfMatch(ctx.req, rowEtag(target.row), true);
    const key = target.row[type.key.name] as StoredValue;
    const merged: RowValues = new Map();
    for (const p of type.properties) if (p.storage.kind === 'column') merged.set(p.name, (target.row[p.name] ?? null) as StoredValue);
    for (const [k, v] of changes) merged.set(k, v);
    const changed = new Set(changes.keys());
    checkRequired(type, merged);
    checkReferences(svc, type, companyId, merged, changed);
    checkUnique(svc, type, companyId, merged, changed, key);
    stampRow(svc, type, changes, now);
    const set = [...changes.entries()].map(([column, v]) => ({ column, value: param(v) }));
    svc.db.run(compile({ kind: 'update', table: type.table, set, where: eq(col(type.table, type.key.name), param(key)) }, sqliteDialect));
    const stored = readRow(svc, type, companyId, [{ property: type.key.name, value: key }]);
    if (stored === undefined) throw new Error('updated row not found');
    return { row: stored, keys: target.keys };
  });

  if (preferReturn(ctx.req) === 'minimal') return noContent({ ETag: rowEtag(result.row), 'Preference-Applied': 'return=minimal' });
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, result.keys), undefined, true);
  return entityResponse(200, type, result.row, context, { format, links: ctx.links });
}

/** DELETE of one entity (and, through foreign keys, what it contains); If-Match checked when sent. */
export async function remove(ctx: OperationContext): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) throw new Error('empty path');
  if (!type.capabilities.deletable) throw notAllowed(type, 'DELETE', type.capabilities.updatable ? ['GET', 'PATCH'] : ['GET']);
  svc.db.transaction(() => {
    const target = loadTarget(ctx);
    checkIfMatch(ctx.req, rowEtag(target.row), false);
    const key = target.row[type.key.name] as StoredValue;
    svc.db.run(compile({ kind: 'delete', table: type.table, where: eq(col(type.table, type.key.name), param(key)) }, sqliteDialect));
  });
  return noContent();
}
