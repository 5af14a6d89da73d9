/**
 * The plans of the GET operations: the planned query options, whether the database writes the entity
 * JSON, and the compiled statements (the page or entity, and the count), cached by request shape
 * (plan-cache.ts) so that a repeated request only fills in its key, company and clock.
 */
import { isoNow } from '../util/iso-now.js';
import type { EdmModel, EntityType } from '../edm/model.js';
import type { JsonFormat } from '../core/format.js';
import type { ReadInput } from './read-input.js';
import type { QueryOptions } from '../uri/ast.js';
import { compile, type CompiledQuery } from '../sql/compile.js';
import { readCost, type ReadCost } from './read-cost.js';
import { expandedRowsPerEntity } from './plan-expand.js';
import type { Dialect } from '../sql/dialect.js';
import type { SelectNode, SqlExpr, SqlValue } from '../sql/nodes.js';
import { col, constant, param, select } from '../sql/build.js';
import type { StoredValue } from '../edm/values.js';
import { PlanCache, type PlannedShape, type StatementTemplate } from './plan-cache.js';
import { sqlJsonMetadata, sqlJsonSupported, type SqlJsonOptions } from './plan-entity-json.js';
import { planPage, type PagePlan } from './plan-page.js';
import { planQuery, type PlannedQuery } from './plan-query.js';
import { COUNT_ALIAS, JSON_ALIAS, planSelect, planSplicedSelect, type PathCondition, type ReadPlanInput } from './plan-select.js';
import type { JsonSplice } from './json-splice.js';

/** What a read runs. */
export interface ReadPlan {
  readonly query: PlannedQuery;
  /** Set when the database writes the entities as JSON text (rows are `[json, key, version, sort values..., spliced members...]`). */
  readonly json?: SqlJsonOptions;
  /** The page of a collection, or the one entity. */
  readonly rows: CompiledQuery;
  /**
   * Set when `rows` gives a collection's whole page as one row whose `_page` column is the JSON texts
   * of its entities joined by commas, NULL for none (the database writes JSON and no next page can
   * follow): one string instead of a string and a row array per entity, about a third less time for a
   * 100-row page.
   */
  readonly pageText?: true;
  /**
   * `count(*)` of the collection when `$count=true` (collections) or for `$count` requests, as a
   * statement of its own; absent when not asked for, or when `countInRows` says `rows` gives it.
   */
  readonly count?: CompiledQuery;
  /**
   * With `pageText` and `$count=true`: the one row of `rows` also carries the count (column `n`). One
   * statement is one snapshot, so PostgreSQL needs no transaction for the two: one round trip instead
   * of four (BEGIN, page, count, COMMIT).
   */
  readonly countInRows?: true;
  /** With `pageText`: the same page as rows, streamed, for a page text that would pass the response budget. */
  readonly streamRows?: CompiledQuery;
  /** Set when the entities' expansions are spliced into the JSON texts of `rows` by the reader (query/json-splice.ts). */
  readonly splice?: JsonSplice;
  /** What the read may cost (read-cost.ts). */
  readonly cost: ReadCost;
}

/** How to plan. */
export interface ReadPlanOptions {
  /** Compile the statements cancellable, for a read thread (sql/compile.ts); cached apart from the others. */
  readonly cancellable?: boolean;
}

/** What kind of read. */
export type ReadKind = 'collection' | 'entity' | 'count';

interface CachedRead {
  readonly query: PlannedQuery;
  readonly json?: SqlJsonOptions;
  readonly pageText?: true;
  readonly countInRows?: true;
  readonly splice?: JsonSplice;
  readonly cost: ReadCost;
}

/** Alias of the page text column of `pageText` reads. */
export const PAGE_ALIAS = '_page';

/**
 * `e1,e2,...` of the entity JSON texts of a page read, in its order (SQLite aggregates the rows of
 * an ordered subquery in that order, as expanded collections rely on too); NULL for no rows. The
 * response brackets it: in SQL the brackets copied the whole page twice more.
 */
function pageTextStatement(dialect: Dialect, rows: SelectNode): SelectNode {
  const page = dialect.jsonTextList(col('p', JSON_ALIAS));
  return select({ columns: [{ expr: page, alias: PAGE_ALIAS }], from: { kind: 'derived', query: rows, alias: 'p' } });
}

const caches = new WeakMap<object, PlanCache<CachedRead>>();

function cacheOf(input: ReadInput): PlanCache<CachedRead> {
  let cache = caches.get(input.planOwner);
  if (cache === undefined) caches.set(input.planOwner, (cache = new PlanCache<CachedRead>()));
  return cache;
}

/** Maps (parameter aliases, custom options) as entry lists, so JSON.stringify keeps them. */
const keyReplacer = (_: string, v: unknown): unknown => (v instanceof Map ? [...v] : typeof v === 'bigint' ? `${v}n` : v);

/**
 * The request's shape: everything planning reads except the per-request values. The query options
 * are taken as the operation received them (not the URL), so conditions the core adds for the caller
 * (companies and row-scoped sets are filtered per grant) are part of the shape. undefined for
 * continuation pages, whose skiptoken values shape the SQL. `kind` names the planner and what it reads.
 */
export function shapeKey(input: ReadInput, kind: string, type: EntityType, conditions: readonly PathCondition[], format: JsonFormat): string | undefined {
  if (input.options.skiptoken !== undefined) return undefined;
  const page = kind.endsWith('collection') ? `${input.page.size} ${input.page.preferenceApplied ?? ''}` : '';
  const head = [kind, type.name, conditions.map((c) => c.property).join(','), format.metadata, format.ieee754Compatible, input.links.serviceRootUrl, input.links.prefix, page];
  return `${head.join('\n')}\n${optionsKey(input.options)}`;
}

/**
 * The keys of shared parses already keyed. Requests of one query string share one frozen parse
 * (uri/query-options-cache.ts), so its text is made once: the JSON of a `$filter` with its spans,
 * through the replacer, took about a tenth of a request's time. Options made for one request (the
 * first parses of a query string, options the core narrowed for the caller) are keyed each time.
 */
const optionKeys = new WeakMap<QueryOptions, string>();

/** The query options as text; `{}` (never a JSON.stringify result) for none, the common case of a GET by key. */
function optionsKey(options: QueryOptions): string {
  if (!Object.isFrozen(options)) return optionsText(options);
  let key = optionKeys.get(options);
  if (key === undefined) optionKeys.set(options, (key = optionsText(options)));
  return key;
}

function optionsText(options: QueryOptions): string {
  if (options.aliases.size === 0 && options.custom.size === 0) {
    let none = true;
    for (const k in options) {
      if (k !== 'aliases' && k !== 'custom' && options[k as keyof typeof options] !== undefined) {
        none = false;
        break;
      }
    }
    if (none) return '{}';
  }
  return JSON.stringify(options, keyReplacer);
}

const COUNT_STAR: SqlExpr = { kind: 'call', name: 'count', args: [{ kind: 'star' }] };

/**
 * `count(*)` of the rows a read selects. A whole company-scoped set (no path condition, no filter) is
 * counted without the company condition when the database holds one company: every row references an
 * existing company (foreign key), so the counts are equal, and SQLite counts a table without reading
 * its rows. Both counts are in one statement (one snapshot).
 * Where the database keeps the count of each company's whole set (EngineCapabilities.keptSetCount: PostgreSQL,
 * which visits every row to count them), that is read instead.
 */
function countStatement(model: EdmModel, dialect: Dialect, type: EntityType, companyId: string | undefined, conditions: readonly PathCondition[], where: ReadPlanInput['where']): SelectNode {
  const plan = planSelect({ type, companyId, conditions, where });
  const filtered: SelectNode = { ...plan, columns: [{ expr: COUNT_STAR, alias: COUNT_ALIAS }], orderBy: [] };
  if (type.scope !== 'company' || conditions.length > 0 || where !== undefined || companyId === undefined) return filtered;
  const kept = dialect.capabilities.keptSetCount?.(type.table, param(companyId), COUNT_ALIAS);
  if (kept !== undefined) return kept;
  const all = select({ columns: [{ expr: COUNT_STAR }], from: { kind: 'table', table: type.table, alias: 'a' } });
  const companies = select({ columns: [{ expr: COUNT_STAR, alias: 'c' }], from: { kind: 'table', table: model.company.table, alias: 'c' } });
  const n: SqlExpr = {
    kind: 'case',
    whens: [{ when: { kind: 'binary', operator: '=', left: col('k', 'c'), right: constant(1) }, then: { kind: 'subquery', query: all } }],
    otherwise: { kind: 'subquery', query: { ...filtered, columns: [{ expr: COUNT_STAR }] } },
  };
  return select({ columns: [{ expr: n, alias: COUNT_ALIAS }], from: { kind: 'derived', query: companies, alias: 'k' } });
}

/** The page text and the count as the two columns of one row (`countInRows`). */
function pageTextAndCount(page: SelectNode, count: SelectNode): SelectNode {
  return {
    kind: 'select',
    columns: [
      { expr: { kind: 'subquery', query: page }, alias: PAGE_ALIAS },
      { expr: { kind: 'subquery', query: count }, alias: COUNT_ALIAS },
    ],
    joins: [],
    orderBy: [],
  };
}

/** Plans the query options: for the database's JSON writer when it can write `format`, else for the JavaScript writer. */
function planOptions(read: ReadInput, type: EntityType, format: JsonFormat, now: string): Omit<CachedRead, 'cost'> {
  const dialect = read.dialect;
  const input = { model: read.model, dialect, type, options: read.options, aliases: read.options.aliases, now, depth: 0 };
  const metadata = sqlJsonMetadata(format);
  if (metadata !== undefined) {
    const json: SqlJsonOptions = { dialect, metadata, links: read.links, ieee754Compatible: format.ieee754Compatible };
    const query = planQuery({ ...input, json });
    if (sqlJsonSupported(type, query.read.select, query.expand, metadata)) return { query, json };
  }
  return { query: planQuery(input) };
}

/** The per-request values of a read's plan ([now, company, condition values...]) and how to plan its shape with them. */
function readShape(input: ReadInput, kind: ReadKind, type: EntityType, conditions: readonly PathCondition[], format: JsonFormat, options: ReadPlanOptions): { values: SqlValue[]; build: (v: readonly SqlValue[]) => PlannedShape<CachedRead> } {
  const compileOptions = { cancellable: options.cancellable === true };
  const dialect = input.dialect;
  const companyId = input.companyId;
  const values = readValues(companyId, conditions);
  const build = (v: readonly SqlValue[]): PlannedShape<CachedRead> => {
    const shape = planOptions(input, type, format, v[0] as string);
    const company = companyId === undefined ? undefined : (v[1] as string);
    const conds = conditions.map((c, i) => ({ property: c.property, value: v[i + 2] as StoredValue }));
    const { query } = shape;
    const statements: CompiledQuery[] = [];
    const skip = input.options.skip ?? 0;
    const counted = kind === 'count' || query.count;
    const count = (): SelectNode => countStatement(input.model, dialect, type, company, conds, query.read.where);
    let value: CachedRead;
    if (kind === 'collection') {
      const page = planPage(input, type, query);
      const read: ReadPlanInput = { type, companyId: company, conditions: conds, ...query.read, ...page.read };
      const pageRows = page.final ? Math.min(input.options.top ?? page.size, page.size) : page.size;
      // Each entity, expanded ones too, taken for one of the set: its members as selected, and its etag.
      const entities = pageRows * (1 + expandedRowsPerEntity(query.expand));
      const pageText = shape.json !== undefined && page.final && dialect.capabilities.pageTextFits(entities, 1 + (query.read.select?.size ?? type.properties.length));
      const cost = readCost('collection', type, query, pageRows, skip);
      if (pageText) {
        // The page's text is made in SQL, so each entity's is too.
        const rows = planSelect(read);
        if (counted) {
          statements.push(compile(pageTextAndCount(pageTextStatement(dialect, rows), count()), dialect, compileOptions), compile(rows, dialect, compileOptions));
          return { value: { ...shape, pageText, countInRows: true, cost }, statements };
        }
        statements.push(compile(pageTextStatement(dialect, rows), dialect, compileOptions), compile(rows, dialect, compileOptions));
        value = { ...shape, pageText, cost };
      } else {
        const { select: rows, splice } = planSplicedSelect({ ...read, spliceJson: true });
        statements.push(compile(rows, dialect, compileOptions));
        value = { ...shape, ...(splice === undefined ? {} : { splice }), cost };
      }
    } else if (kind === 'entity') {
      statements.push(compile(planSelect({ type, companyId: company, conditions: conds, select: query.read.select, extraColumns: query.read.extraColumns, json: query.read.json, limit: 1 }), dialect, compileOptions));
      value = { ...shape, cost: readCost('entity', type, query, 1, 0) };
    } else {
      value = { ...shape, cost: readCost('count', type, query, 0, 0) };
    }
    if (counted) statements.push(compile(count(), dialect, compileOptions));
    return { value, statements };
  };
  return { values, build };
}

/** The plan of a read of `type` restricted by `conditions`; for collections also its page. */
export function planReadRequest(input: ReadInput, kind: ReadKind, type: EntityType, conditions: readonly PathCondition[], format: JsonFormat, options: ReadPlanOptions = {}): { plan: ReadPlan; page?: PagePlan } {
  const { values, build } = readShape(input, kind, type, conditions, format, options);
  const key = cacheKey(input, kind, type, conditions, format, options);
  const planned = key === undefined ? build(values) : cacheOf(input).get(key, values, build);
  const { query, json, pageText, countInRows, splice, cost } = planned.value;
  // The statements in the order build pushes them: rows, then streamRows (pageText), then the count
  // (absent when countInRows, or not asked for).
  const queue = [...planned.statements];
  const rows = queue.shift() as CompiledQuery;
  const streamRows = pageText === true ? queue.shift() : undefined;
  const plan: ReadPlan = kind === 'count' ? { query, json, rows, count: rows, cost } : { query, json, pageText, countInRows, ...(splice === undefined ? {} : { splice }), rows, streamRows, count: queue.shift(), cost };
  return kind === 'collection' ? { plan, page: planPage(input, type, query) } : { plan };
}

/** The plan cache's key of a read, or undefined when it is not cached (a $skiptoken). */
function cacheKey(input: ReadInput, kind: ReadKind, type: EntityType, conditions: readonly PathCondition[], format: JsonFormat, options: ReadPlanOptions): string | undefined {
  const shape = shapeKey(input, kind, type, conditions, format);
  return shape === undefined ? undefined : options.cancellable === true ? `${shape}\ncancellable` : shape;
}

/** The plan of reads of one entity as kept templates: the statement for given values is `fillTemplate(rows, values)`. */
export interface EntityReadTemplates {
  readonly query: PlannedQuery;
  readonly json?: SqlJsonOptions;
  readonly cost: ReadCost;
  /** The entity's statement, and the same compiled for a read thread; values as `readValues` gives them. */
  readonly rows: StatementTemplate;
  readonly cancellableRows: StatementTemplate;
}

/**
 * The plan planReadRequest makes for a GET of one entity, as templates a caller may keep and fill for
 * other requests of the same shape (same type, conditions, format, links and options; other values):
 * operations/read-by-key.ts. Undefined when the plan cache would not keep it either.
 */
export function entityReadTemplates(input: ReadInput, type: EntityType, conditions: readonly PathCondition[], format: JsonFormat): EntityReadTemplates | undefined {
  const made = (options: ReadPlanOptions): { value: CachedRead; templates: readonly StatementTemplate[] } | undefined => {
    const key = cacheKey(input, 'entity', type, conditions, format, options);
    const { values, build } = readShape(input, 'entity', type, conditions, format, options);
    return key === undefined ? undefined : cacheOf(input).templates(key, values, build);
  };
  const plain = made({});
  const cancellable = made({ cancellable: true });
  // build pushes the entity's statement first, and a count only for $count=true, which a key read has not.
  if (plain === undefined || cancellable === undefined || plain.templates.length !== 1 || cancellable.templates.length !== 1) return undefined;
  const { query, json, cost } = plain.value;
  return { query, ...(json === undefined ? {} : { json }), cost, rows: plain.templates[0] as StatementTemplate, cancellableRows: cancellable.templates[0] as StatementTemplate };
}

/** The per-request values of a read's statements: [now, company, condition values...]. */
export function readValues(companyId: string | undefined, conditions: readonly PathCondition[]): SqlValue[] {
  return [isoNow(), companyId ?? null, ...conditions.map((c) => c.value)];
}
