/**
 * Compiled statements by shape, for the write path that runs the same few statements for every row:
 * building a SQL tree and printing it costs more than SQLite takes to run a small statement, and the
 * text of a statement only depends on its shape (table, columns, which conditions), never on its
 * values. A shape is built and compiled once with placeholder values; later calls substitute the
 * values into the remembered parameter list. The caller's `shape` key must name everything `build`
 * varies on except `values`.
 */
import { compile, type CompiledQuery } from './compile.js';
import type { SqlValue, StatementNode } from './nodes.js';
import type { Dialect } from './dialect.js';

interface Entry {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  /** For each parameter, the index of the value it takes, or -1 for a parameter of the shape itself. */
  readonly slots: readonly number[];
}

/** A placeholder no caller's value can equal: the NUL character cannot appear in model names or bound text we compare. */
function placeholder(index: number): string {
  return `\u0000value ${index}\u0000`;
}

/** Shapes remembered per cache, at most, for a cache that clients choose the shapes of (writesOf); past this many, new shapes are compiled each time. */
export const MAX_SHAPES = 500;

/** Compiled statements of one model object (a cache per entity type keeps shapes of different models apart). */
export class StatementCache {
  private readonly entries = new Map<string, Entry>();

  /** @param maxShapes how many shapes it remembers (clients choose the shapes of writes) */
  constructor(
    private readonly dialect: Dialect,
    private readonly maxShapes = Number.POSITIVE_INFINITY,
  ) {}

  /** The statement of `shape` with `values`; `build` makes the statement tree for any values (called once per shape). */
  compiled(shape: string, values: readonly SqlValue[], build: (values: readonly SqlValue[]) => StatementNode): CompiledQuery {
    let entry = this.entries.get(shape);
    if (entry === undefined) {
      if (this.entries.size >= this.maxShapes) return compile(build(values), this.dialect);
      const marks = values.map((_value, index) => placeholder(index));
      const q = compile(build(marks), this.dialect);
      entry = { sql: q.sql, params: q.params, slots: q.params.map((p) => (typeof p === 'string' ? marks.indexOf(p) : -1)) };
      this.entries.set(shape, entry);
    }
    const { params, slots } = entry;
    const bound = new Array<SqlValue>(params.length);
    for (let i = 0; i < params.length; i++) {
      const slot = slots[i] as number;
      bound[i] = slot < 0 ? (params[i] as SqlValue) : (values[slot] as SqlValue);
    }
    return { sql: entry.sql, params: bound };
  }
}

const caches = new WeakMap<object, WeakMap<Dialect, StatementCache>>();
const writeCaches = new WeakMap<object, WeakMap<Dialect, StatementCache>>();

function cacheIn(all: WeakMap<object, WeakMap<Dialect, StatementCache>>, owner: object, dialect: Dialect, maxShapes?: number): StatementCache {
  let byDialect = all.get(owner);
  if (byDialect === undefined) all.set(owner, (byDialect = new WeakMap()));
  let cache = byDialect.get(dialect);
  if (cache === undefined) byDialect.set(dialect, (cache = new StatementCache(dialect, maxShapes)));
  return cache;
}

/** The statement cache of a model object (an entity type) for a dialect: shapes the code chooses. */
export function statementsOf(owner: object, dialect: Dialect): StatementCache {
  return cacheIn(caches, owner, dialect);
}

/**
 * The cache of an entity type's INSERT and UPDATE statements, whose shape is the set of columns a
 * request writes: clients choose how many there are, so it remembers at most MAX_SHAPES, apart from
 * statementsOf's, which they therefore cannot crowd out.
 */
export function writesOf(owner: object, dialect: Dialect): StatementCache {
  return cacheIn(writeCaches, owner, dialect, MAX_SHAPES);
}
