/**
 * Exports the rows of an entity set (of one company, for a company-scoped set) in key order, as CSV or
 * as a JSON array of objects written as a GET returns them. Rows are read in pages by key (the same on
 * every engine, and no statement stays open while the output drains), so a set of any size takes
 * constant memory. CSV writes enum members as metadata names them
 * (`Pending Approval`), which import reads back. By default every stored property is written;
 * `importable` writes only the columns import takes (no read-only values, no generated keys).
 */
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { EntityType, Property } from '../edm/model.js';
import { HIDDEN_COLUMNS } from '../edm/model.js';
import { decodeODataName } from '../edm/encode-name.js';
import { storedToJson } from '../edm/values.js';
import type { Engine } from '../db/engine.js';
import { and, bin, col, constant, eq, param, select } from '../sql/build.js';
import { compile } from '../sql/compile.js';
import type { SqlValue } from '../sql/nodes.js';
import type { DataFormat } from './data-file.js';
import { ignoredOnWrite } from '../validation/validate-body.js';

/** Options of an export. */
export interface ExportOptions {
  readonly format: DataFormat;
  /** The company of a company-scoped set; undefined for a global one. */
  readonly companyId: string | undefined;
  /** Only the columns import accepts. */
  readonly importable?: boolean;
}

const JSON_VALUES = { ieee754Compatible: false };

/** The properties an export writes. */
export function exportedProperties(type: EntityType, importable: boolean): Property[] {
  return type.properties.filter((p) => p.storage.kind === 'column' && (!importable || !ignoredOnWrite(type, p, 'create')));
}

function csvCell(property: Property, value: unknown): string {
  const json = storedToJson(value, property.type, JSON_VALUES);
  if (json === null) return '';
  if (property.type.kind === 'enum') return decodeODataName(String(json));
  return typeof json === 'string' ? json : JSON.stringify(json);
}

/** Rows per page read. */
const PAGE_ROWS = 1000;

const KEY_ALIAS = '_key';

/** The values of `properties` of every row of the set (of the company), in key order, a page at a time. */
async function* rowsOf(engine: Pick<Engine, 'db' | 'dialect'>, type: EntityType, properties: readonly Property[], companyId: string | undefined): AsyncGenerator<unknown[]> {
  let after: SqlValue | undefined;
  for (;;) {
    const where = and(
      type.scope === 'company' ? eq(col('t', HIDDEN_COLUMNS.company), param(companyId ?? null)) : undefined,
      after === undefined ? undefined : bin('>', col('t', type.key.name), param(after)),
    );
    const query = select({
      columns: [...properties.map((p) => ({ expr: col('t', p.name), alias: p.name })), { expr: col('t', type.key.name), alias: KEY_ALIAS }],
      from: { kind: 'table', table: type.table, alias: 't' },
      ...(where === undefined ? {} : { where }),
      orderBy: [{ expr: col('t', type.key.name), direction: 'ASC' }],
      limit: constant(PAGE_ROWS),
    });
    const rows = await engine.db.all(compile(query, engine.dialect));
    for (const row of rows) yield properties.map((p) => row[p.name]);
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1]?.[KEY_ALIAS] as SqlValue;
  }
}

/** Writes the rows to `out` (not ended); resolves with the number of rows written. */
export async function exportRows(engine: Pick<Engine, 'db' | 'dialect'>, type: EntityType, out: Writable, options: ExportOptions): Promise<number> {
  const properties = exportedProperties(type, options.importable === true);
  const rows = rowsOf(engine, type, properties, options.companyId);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let count = 0;
  if (options.format === 'json') {
    await write('[');
    for await (const values of rows) {
      const entity: Record<string, unknown> = {};
      properties.forEach((p, i) => (entity[p.name] = storedToJson(values[i], p.type, JSON_VALUES)));
      await write(`${count === 0 ? '\n' : ',\n'}${JSON.stringify(entity)}`);
      count++;
    }
    await write(count === 0 ? ']\n' : '\n]\n');
    return count;
  }
  const csv = stringify({ header: true, columns: properties.map((p) => p.name), record_delimiter: 'unix' });
  csv.pipe(out, { end: false });
  const ended = once(csv, 'end');
  for await (const values of rows) {
    if (!csv.write(properties.map((p, i) => csvCell(p, values[i])))) await once(csv, 'drain');
    count++;
  }
  csv.end();
  await ended;
  return count;
}
