/**
 * POST (create, with deep insert), PATCH (update), PUT (replace) and DELETE on entity sets and
 * navigations (OData Protocol §11.4). Each write has three phases: prepare (validate the body, the
 * type's async `beforeWrite` hook), execute (one synchronous transaction body: resolve the path, load
 * and check the ETag, the model's checks, `validateWrite` hooks, the statement, outbox rows; run by
 * `ctx.writes`, alone or in a change set's transaction), then respond (after COMMIT and the
 * `afterCommit` hooks). Row-scoped types check the body's company before any hook runs. Nothing here
 * knows an entity.
 */
import type { EntityType, NavigationProperty, Property } from '../../edm/model.js';
import type { StoredValue } from '../../edm/values.js';
import type { DbRow } from '../../db/engine.js';
import { BodyValidationError, MethodNotAllowedError } from '../../errors/odata-error.js';
import { contextPath, contextUrl } from '../../serialize/context-url.js';
import { rowEtag } from '../../serialize/entity-json.js';
import { negotiateJson } from '../format.js';
import type { OperationContext } from '../operation-context.js';
import type { ODataResponse } from '../request.js';
import { createdHeaders, entityResponse, jsonResponse, noContent } from '../responses.js';
import { loadTarget, resolvePath } from '../../store/resolve-path.js';
import { oneStatementUpdate, updateInOneStatement } from '../../store/one-statement-update.js';
import type { RowValues } from '../../store/write-checks.js';
import { preferReturn, readJsonBody } from '../request-body.js';
import { checkPreconditions, requireIfMatch } from '../preconditions.js';
import { beforeWrite, writeIdentity } from './write-hooks.js';
import { authorizeRowCompany } from '../../auth/authorize.js';
import { assignedRowSecret, secretAnnotation, withSecretAnnotation } from '../../store/row-secret.js';
import { assignKeyFirst } from '../../store/apply-defaults.js';
import { createChildren, prepareChildren, storedValues, withChildren } from './deep-insert.js';
import { applyBindings } from '../bind-references.js';

function notAllowed(type: EntityType, what: string, allowed: string[]): MethodNotAllowedError {
  return new MethodNotAllowedError(`${what} is not allowed on ${type.entitySet}: records of this kind cannot be ${what === 'POST' ? 'created' : 'deleted'} through the API.`, allowed);
}

function lastType(ctx: OperationContext): EntityType {
  const type = ctx.path.steps[ctx.path.steps.length - 1]?.type;
  if (type === undefined) throw new Error('empty path');
  return type;
}

/** 400 when the body carries a key other than the one of the entity the URL addresses (conventions §2; the same one is ignored). */
function checkSentKey(type: EntityType, body: unknown, key: unknown): void {
  const sent = (body as Record<string, unknown>)[type.key.name];
  if (sent === undefined) return;
  const same = typeof sent === 'string' && typeof key === 'string' ? sent.toLowerCase() === key.toLowerCase() : sent === key;
  if (!same) {
    throw new BodyValidationError('BadRequest_InvalidOperation', `The key '${type.key.name}' in the body (${JSON.stringify(sent)}) differs from the key in the URL; leave it out or send the same value.`, type.key.name);
  }
}

/** A row-scoped type (model `rowScope`): the company the body names must be one the caller may use it in. */
function authorizeRowScope(ctx: OperationContext, type: EntityType, row: RowValues): void {
  if (type.rowScope === undefined) return;
  const property = type.rowScope.companyProperty.name;
  const companyId = row.get(property);
  if (companyId === undefined || companyId === null) {
    throw new BodyValidationError('Application_FieldValidationException', `The field '${property}' of ${type.name} must have a value.`, property);
  }
  authorizeRowCompany(ctx.principal, type, String(companyId));
}

/**
 * POST to a collection: creates an entity, and the contained children its body nests (deep insert);
 * 201 with it and its children (or 204 with `Prefer: return=minimal`). A type with a per-row secret
 * always answers 201 with the body: the secret annotation is shown this once.
 */
export async function create(ctx: OperationContext): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = lastType(ctx);
  if (!type.capabilities.insertable) throw notAllowed(type, 'POST', ['GET']);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const nested = new Map<NavigationProperty, unknown>();
  const body = applyBindings(svc, type, readJsonBody(ctx.req, svc.model.service.maxJsonDepth), ctx.req.serviceRootUrl);
  const given = svc.validator.validate(type, body, 'create', nested);
  const values = storedValues(given);
  authorizeRowScope(ctx, type, values);
  const row = await beforeWrite(ctx, type, 'create', values);
  const children = nested.size === 0 ? [] : await prepareChildren(ctx, nested);
  if (ctx.writes.keysFirst) assignKeyFirst(type, row);
  const identity = writeIdentity(ctx);

  const created = await ctx.writes.run(
    svc,
    identity,
    async (session) => {
      const resolved = await resolvePath(svc, session.tx, ctx.path.steps, identity.companyId);
      // Creating through a navigation sets the reference to the parent.
      for (const c of resolved.conditions) {
        const sent = row.get(c.property);
        if (sent !== undefined && sent !== c.value) {
          throw new BodyValidationError('BadRequest_InvalidOperation', `The field '${c.property}' must be ${String(c.value)} (the parent in the URL) or left out.`, c.property);
        }
        row.set(c.property, c.value);
      }
      const parentType = ctx.path.steps[ctx.path.steps.length - 2]?.type;
      const parent = resolved.parentRow === undefined || parentType === undefined ? undefined : { type: parentType, row: resolved.parentRow };
      const stored = await session.create(type, row, parent);
      const withCreated = await createChildren(session, type, stored, children);
      return { row: withCreated.row, keys: [...resolved.keys, stored[type.key.name] as StoredValue], children: withCreated.children };
    },
    { type, key: row.get(type.key.name) },
  );

  const opts = { format, links: ctx.links };
  const headers = createdHeaders(type, created.row, opts);
  const secret = assignedRowSecret(row);
  if (preferReturn(ctx.req) === 'minimal' && secret === undefined) return noContent({ ...headers, ETag: rowEtag(created.row), 'Preference-Applied': 'return=minimal' });
  const steps = ctx.path.steps.map((s, i) => (i === ctx.path.steps.length - 1 ? { ...s, single: true } : s));
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(steps, created.keys.slice(0, -1)), undefined, true);
  if (secret === undefined && created.children.length === 0) return entityResponse(201, type, created.row, context, opts, headers);
  const entity = withChildren(type, created.row, created.children, opts);
  const json = { ...(format.metadata === 'none' ? {} : { '@odata.context': context }), ...entity };
  const answer = secret === undefined ? json : withSecretAnnotation(json, secretAnnotation(svc.model), secret);
  return jsonResponse(201, answer, format, { ETag: rowEtag(created.row), ...headers });
}

/**
 * The values a PUT gives the properties its body leaves out (OData 4.01 §11.4.3, conventions §8):
 * each updatable property returns to its default value, or null where it has none (a required one
 * then fails the model's check, 400). A value the service generates (a number from a series, a line
 * number, the creation date, the creator) stays as it is: it identifies or records the row.
 */
function replacedValues(type: EntityType, given: ReadonlyMap<Property, unknown>): Map<string, StoredValue> {
  const reset = new Map<string, StoredValue>();
  for (const p of type.properties) {
    if (p.storage.kind !== 'column' || p === type.key || p.writable !== 'always' || p.autoModified || given.has(p)) continue;
    if (p.default === undefined) reset.set(p.name, null);
    else if (p.default.kind === 'value') reset.set(p.name, typeof p.default.value === 'boolean' ? (p.default.value ? 1 : 0) : p.default.value);
  }
  return reset;
}

/**
 * PATCH (merge the body into the entity) or PUT (`replace`: the body is the whole entity, see
 * replacedValues) of one entity: If-Match required (428/412); 200 with the entity, or 204 with
 * return=minimal.
 */
export async function update(ctx: OperationContext, replace = false): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = lastType(ctx);
  const method = replace ? 'PUT' : 'PATCH';
  if (!type.capabilities.updatable) throw new MethodNotAllowedError(`${method} is not allowed on ${type.entitySet}: its records are read-only through the API.`, ['GET']);
  requireIfMatch(ctx.preconditions);
  const format = negotiateJson(ctx.options.format, ctx.req.headers['accept']);
  const body = applyBindings(svc, type, readJsonBody(ctx.req, svc.model.service.maxJsonDepth), ctx.req.serviceRootUrl);
  const given = svc.validator.validate(type, body, 'update');
  const values = storedValues(given);
  if (replace) for (const [name, value] of replacedValues(type, given)) values.set(name, value);
  const changes = await beforeWrite(ctx, type, 'update', values);
  const identity = writeIdentity(ctx);
  const oneStatement = oneStatementUpdate(svc, type, ctx.path.steps, ctx.preconditions, body as Record<string, unknown>, changes);

  const result = await ctx.writes.run(svc, identity, async (session) => {
    const written = oneStatement === undefined ? undefined : await updateInOneStatement(svc, session.tx, ctx.path.steps, identity.companyId, type, changes, identity.now, oneStatement);
    if (written !== undefined) return written;
    const target = await loadTarget(svc, session.tx, ctx.path.steps, identity.companyId);
    checkSentKey(type, body, target.row[type.key.name]);
    checkPreconditions(ctx.preconditions, rowEtag(target.row), true);
    return { row: await session.update(type, target.row, changes), keys: target.keys };
  });

  if (preferReturn(ctx.req) === 'minimal') return noContent({ ETag: rowEtag(result.row), 'Preference-Applied': 'return=minimal' });
  const context = contextUrl(ctx.req.serviceRootUrl, ctx.contextPrefix, contextPath(ctx.path.steps, result.keys), undefined, true);
  return entityResponse(200, type, result.row, context, { format, links: ctx.links });
}

/**
 * DELETE of one entity (and, through foreign keys and hooks, what depends on it); If-Match checked when
 * sent, or required (428 before any hook runs) where the type's capabilities say `deleteRequiresIfMatch`.
 */
export async function remove(ctx: OperationContext): Promise<ODataResponse> {
  const { svc } = ctx;
  const type = lastType(ctx);
  if (!type.capabilities.deletable) throw notAllowed(type, 'DELETE', type.capabilities.updatable ? ['GET', 'PATCH', 'PUT'] : ['GET']);
  const ifMatchRequired = type.capabilities.deleteRequiresIfMatch;
  if (ifMatchRequired) requireIfMatch(ctx.preconditions);
  await beforeWrite(ctx, type, 'delete', new Map());
  const identity = writeIdentity(ctx);
  await ctx.writes.run(svc, identity, async (session) => {
    const target = await loadTarget(svc, session.tx, ctx.path.steps, identity.companyId);
    checkPreconditions(ctx.preconditions, rowEtag(target.row), ifMatchRequired);
    await session.delete(type, target.row);
  });
  return noContent();
}
