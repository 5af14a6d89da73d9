/**
 * Imports records into an entity set through the same gates as POST: the body validator (types,
 * lengths, enum members, read-only fields, Decimal facets), the type's beforeWrite hook, and in the
 * write transaction the model's checks (required, references, uniqueness, number series) and the
 * type's validateWrite rule. Rows are written in batches of `batchSize` per transaction, each row in
 * its own savepoint: the COMMIT per batch, not per row, is what makes a bulk load fast. A type's
 * `insertable: false` closes POST to clients; the operator's import and seed may still load it (as the
 * demo seed loads BOM lines), through the same field checks.
 *
 * What a refused row does depends on the mode. `skip` (the import command's default): the row is
 * rolled back alone, reported with its line, and the import goes on; batches commit as they go, so
 * other writers get in between. `atomic` (seed, `import --atomic`): the first refused row rejects the
 * import with ImportRefusedError; run it inside `inOuterTransaction` so that everything it wrote is
 * rolled back with it.
 */
import type { EntityType, Property } from '../edm/model.js';
import { jsonToStored } from '../edm/values.js';
import type { ServiceContext } from '../core/service-context.js';
import type { Principal } from '../auth/principal.js';
import type { RowValues } from '../store/write-checks.js';
import { runBeforeWrite } from '../hooks/run-hooks.js';
import { BatchItemError, inWriteBatch, type WriteIdentity } from '../store/write-session.js';
import { answerError } from '../core/answer-error.js';
import type { DataRecord } from './data-file.js';

/** What to do with a refused row. */
export type ImportMode = 'skip' | 'atomic';

/** Options of an import. */
export interface ImportOptions {
  readonly mode: ImportMode;
  /** Rows per transaction (default 2,000). */
  readonly batchSize?: number;
  /** Who writes (currentUser defaults, the write identity of rules). */
  readonly principal: Principal;
  /** The company of a company-scoped set; undefined for a global one. */
  readonly companyId: string | undefined;
  /** Called once per committed batch (progress). */
  readonly onBatch?: (imported: number, refused: number) => void;
  /** Insert the rows without their stored ETags, which start-up stores (WriteIdentity.bulk): the import command's choice. */
  readonly bulk?: boolean;
}

/** A row the import refused: its line (and element of a JSON file) and the error the API would have answered. */
export interface RefusedRow {
  readonly line: number;
  readonly element?: number;
  readonly code: string;
  readonly message: string;
  readonly target?: string;
}

/** The outcome of an import. */
export interface ImportReport {
  readonly imported: number;
  readonly refused: readonly RefusedRow[];
}

/** The atomic import stopped at a refused row; nothing was written. */
export class ImportRefusedError extends Error {
  constructor(readonly row: RefusedRow) {
    super(`line ${row.line}: ${refusalText(row)}`);
    this.name = 'ImportRefusedError';
  }
}

/** What a refused row is told after its `file:line: `: the JSON element, when there is one, the error code, message and field. */
export function refusalText(row: RefusedRow): string {
  return `${row.element === undefined ? '' : `element ${row.element}: `}${row.code}: ${row.message}${row.target === undefined ? '' : ` (field ${row.target})`}`;
}

interface Pending {
  readonly line: number;
  readonly element?: number;
  readonly row: RowValues;
}

/** Where a record or pending row is, for its refusal. */
type Place = Pick<Pending, 'line' | 'element'>;

function refusal(svc: ServiceContext, at: Place | undefined, error: unknown, requestId: string): RefusedRow {
  const response = answerError(svc, error, requestId);
  const body = JSON.parse(response.body) as { error: { code: string; message: string; target?: string } };
  const place = { line: at?.line ?? 0, ...(at?.element === undefined ? {} : { element: at.element }) };
  return { ...place, code: body.error.code, message: body.error.message, ...(body.error.target === undefined ? {} : { target: body.error.target }) };
}

function storedValues(values: Map<Property, unknown>): RowValues {
  const row: RowValues = new Map();
  for (const [property, value] of values) row.set(property.name, jsonToStored(value, property));
  return row;
}

/** Imports `records` into `type`; resolves with what was imported and refused (atomic: rejects with ImportRefusedError). */
export async function importRows(svc: ServiceContext, type: EntityType, records: AsyncIterable<DataRecord>, options: ImportOptions): Promise<ImportReport> {
  const requestId = `import-${type.entitySet}`;
  const identity: WriteIdentity = { companyId: options.companyId, principal: options.principal, requestId, now: new Date(), ...(options.bulk === true ? { bulk: true } : {}) };
  const hooks = svc.hooks.forType(type);
  const batchSize = Math.max(1, options.batchSize ?? 2000);
  const refused: RefusedRow[] = [];
  const refuse = (row: RefusedRow): void => {
    if (options.mode === 'atomic') throw new ImportRefusedError(row);
    refused.push(row);
  };
  let imported = 0;
  let batch: Pending[] = [];

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const pending = batch;
    batch = [];
    let outcomes;
    try {
      outcomes = await inWriteBatch(svc, { ...identity, now: new Date() }, pending, (session, item) => session.create(type, item.row), options.mode === 'atomic', false);
    } catch (e) {
      if (e instanceof BatchItemError) refuse(refusal(svc, pending[e.index], e.error, requestId));
      throw e;
    }
    outcomes.forEach((outcome, index) => {
      if (outcome.ok) imported++;
      else refuse(refusal(svc, pending[index], outcome.error, requestId));
    });
    options.onBatch?.(imported, refused.length);
  };

  for await (const record of records) {
    let row: RowValues;
    try {
      row = storedValues(svc.validator.validate(type, record.values, 'create'));
      if (hooks?.beforeWrite !== undefined) {
        row = await runBeforeWrite(hooks, { entityType: type.name, entitySet: type.entitySet, requestId, user: options.principal, companyId: options.companyId, op: 'create', key: undefined, services: { model: svc.model, outbound: svc.outbound, callTimeoutMs: svc.callTimeoutMs } }, row);
      }
    } catch (e) {
      refuse(refusal(svc, record, e, requestId));
      continue;
    }
    batch.push({ line: record.line, ...(record.element === undefined ? {} : { element: record.element }), row });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  // Rows refused by validation are known before those refused in their batch's transaction.
  return { imported, refused: refused.sort((a, b) => a.line - b.line || (a.element ?? 0) - (b.element ?? 0)) };
}

/**
 * Runs `body` inside one database transaction that stays open across its awaits (the write batches
 * inside join it as savepoints: db/engine.ts): COMMIT when it resolves, ROLLBACK when it rejects. For
 * commands that are the only user of their service (seed, import --atomic), never inside the server:
 * the body awaits files, and every other writer waits meanwhile.
 */
export function inOuterTransaction<T>(svc: ServiceContext, body: () => Promise<T>): Promise<T> {
  return svc.engine.outerTransaction(body);
}
