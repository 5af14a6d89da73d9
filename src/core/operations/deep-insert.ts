/**
 * Deep insert (OData 4.01 Part 1 §11.4.2.2, conventions §8): a POST body that carries arrays of the
 * entity's contained children (an ECN with `engChangeNoticeComments`, an ECO with
 * `engChangeOrderTasks`, to any depth) creates all of them in the parent's transaction. Each child goes
 * through what a POST of it alone would: its type must accept POST (405 otherwise, nested or not, and
 * nothing is created), its body is validated as its own, the caller needs write permission on its type,
 * its beforeWrite hook runs before the transaction and its validateWrite hook inside it. The reference
 * to the parent is set from the parent's key; a body that names another parent is a 400. A deep insert
 * is one synchronous transaction, so the children it may hold are bounded (limits.maxNestedEntities:
 * a thousand children held the event loop about 100 ms).
 */
import type { EntityType, NavigationProperty, Property } from '../../edm/model.js';
import { jsonToStored, type StoredValue } from '../../edm/values.js';
import type { DbRow } from '../../db/engine.js';
import { BodyValidationError, MethodNotAllowedError } from '../../errors/odata-error.js';
import { authorizeCreate } from '../../auth/authorize.js';
import { entityToJson, type EntityJsonOptions } from '../../serialize/entity-json.js';
import type { WriteSession } from '../../store/write-session.js';
import type { OperationContext } from '../operation-context.js';
import type { RowValues } from '../../store/write-checks.js';
import { beforeWrite } from './write-hooks.js';
import { applyBindings } from '../bind-references.js';
import { readRow } from '../../store/resolve-path.js';
import { limitSetting } from '../../edm/service-limits.js';

/** A child of a deep insert, ready to be written. */
export interface PreparedChild {
  readonly nav: NavigationProperty;
  readonly row: RowValues;
  readonly children: readonly PreparedChild[];
}

/** A child as created, with its own created children. */
export interface CreatedChild {
  readonly nav: NavigationProperty;
  readonly row: DbRow;
  readonly children: readonly CreatedChild[];
}

/** The body's values in stored form. */
export function storedValues(values: Map<Property, unknown>): RowValues {
  const row: RowValues = new Map();
  for (const [p, v] of values) row.set(p.name, jsonToStored(v, p));
  return row;
}

/**
 * Validates, authorizes and runs beforeWrite for every child in `nested` (by navigation, as the body
 * validator collected them), depth first in body order; throws before anything is written.
 */
export async function prepareChildren(ctx: OperationContext, nested: ReadonlyMap<NavigationProperty, unknown>, path = '', counted = { n: 0 }): Promise<PreparedChild[]> {
  const prepared: PreparedChild[] = [];
  const max = ctx.svc.model.service.maxNestedEntities;
  for (const [nav, value] of nested) {
    const type = nav.target;
    const where = `${path}${nav.name}`;
    if (!type.capabilities.insertable) {
      throw new MethodNotAllowedError(`${type.entitySet} cannot be created through the API, inside another entity or on their own; leave '${where}' out of the body.`, ['GET']);
    }
    if (!Array.isArray(value)) {
      throw new BodyValidationError('BadRequest', `Invalid Request Body: '${where}' must be an array of ${type.name} entities to create.`, where);
    }
    counted.n += value.length;
    if (counted.n > max) {
      throw new BodyValidationError('BadRequest', `A deep insert creates at most ${max} entities besides the one POSTed (${limitSetting('maxNestedEntities')}); '${where}' passes it. Create the rest with their own requests, or in a $batch change set.`, where);
    }
    authorizeCreate(ctx.principal, ctx.company?.id, type);
    for (const [i, element] of value.entries()) {
      const grandchildren = new Map<NavigationProperty, unknown>();
      let given: Map<Property, unknown>;
      try {
        given = ctx.svc.validator.validate(type, applyBindings(ctx.svc, type, element, ctx.req.serviceRootUrl), 'create', grandchildren);
      } catch (e) {
        throw e instanceof BodyValidationError ? new BodyValidationError(e.code, `${where}[${i}]: ${e.message}`, `${where}[${i}]/${e.target ?? ''}`.replace(/\/$/, ''), e.details) : e;
      }
      const row = await beforeWrite(ctx, type, 'create', storedValues(given));
      prepared.push({ nav, row, children: await prepareChildren(ctx, grandchildren, `${where}[${i}]/`, counted) });
    }
  }
  return prepared;
}

/**
 * Creates the prepared children of a row of `type` just created (inside its transaction), each with
 * its parent's reference; gives them, and the parent as it stands after them: the counters its
 * children keep (bomCommentExists) moved with them, so a parent with such properties is read again.
 */
export async function createChildren(session: WriteSession, type: EntityType, parent: DbRow, children: readonly PreparedChild[]): Promise<{ row: DbRow; children: CreatedChild[] }> {
  const created: CreatedChild[] = [];
  for (const child of children) {
    for (const j of child.nav.joins) {
      const value = parent[j.sourceProperty] as StoredValue;
      const sent = child.row.get(j.targetProperty);
      if (sent !== undefined && sent !== value) {
        throw new BodyValidationError('BadRequest_InvalidOperation', `The field '${j.targetProperty}' of a nested ${child.nav.target.name} must be ${String(value)} (its parent) or left out.`, j.targetProperty);
      }
      child.row.set(j.targetProperty, value);
    }
    const row = await session.create(child.nav.target, child.row, { type: child.nav.source, row: parent });
    const nested = await createChildren(session, child.nav.target, row, child.children);
    created.push({ nav: child.nav, row: nested.row, children: nested.children });
  }
  if (created.length === 0 || !type.properties.some((p) => p.storage.kind === 'computed' && p.storage.computed.kind === 'exists')) return { row: parent, children: created };
  const again = await readRow(session.svc, session.tx, type, session.identity.companyId, [{ property: type.key.name, value: parent[type.key.name] as StoredValue }]);
  if (again === undefined) throw new Error(`created ${type.name} row not found`);
  return { row: again, children: created };
}

/** The JSON of a created entity with its created children nested under their navigations. */
export function withChildren(type: EntityType, row: DbRow, children: readonly CreatedChild[], opts: EntityJsonOptions): Record<string, unknown> {
  const json = entityToJson(type, row, opts);
  for (const child of children) {
    const list = (json[child.nav.name] ??= []) as unknown[];
    list.push(withChildren(child.nav.target, child.row, child.children, opts));
  }
  return json;
}
