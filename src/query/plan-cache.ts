/**
 * Planned and compiled reads by request shape, so a repeated request (same set, same query options,
 * same format, only other keys, company or clock) skips binding, planning and compiling. A shape is
 * planned once with placeholder strings in place of its per-request values; the placeholders are then
 * found among the compiled parameters and filled in on every hit. A shape whose plan uses a
 * per-request value in any other way than as a whole parameter is not cached.
 */
import { randomBytes } from 'node:crypto';
import type { CompiledQuery } from '../sql/compile.js';
import type { SqlValue } from '../sql/nodes.js';

/** A compiled statement with the positions of the per-request values in its parameters. */
export interface StatementTemplate {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  /** For each parameter, the index of the per-request value it takes, or -1 for a constant. */
  readonly slots: readonly number[];
}

/** What a planner gives for one shape: its statements and whatever else the caller needs again. */
export interface PlannedShape<T> {
  readonly value: T;
  readonly statements: readonly CompiledQuery[];
}

/** Bounded cache of planned shapes (cleared when full: shapes are few in practice, a flood must not grow memory). */
export class PlanCache<T> {
  private readonly entries = new Map<string, { value: T; templates: StatementTemplate[] }>();
  private readonly nonce = randomBytes(8).toString('hex');

  constructor(private readonly limit = 256) {}

  /**
   * The plan of `key` with `values` filled in. On a miss, `plan` is called with one placeholder per
   * value (to be used exactly where the value would be) and the result is cached; when a placeholder
   * ends up inside a longer parameter, `plan` is called again with the real values and nothing is cached.
   */
  get(key: string, values: readonly SqlValue[], plan: (values: readonly SqlValue[]) => PlannedShape<T>): PlannedShape<T> {
    const entry = this.entry(key, values, plan);
    if (entry === undefined) return plan(values);
    return { value: entry.value, statements: entry.templates.map((t) => fillTemplate(t, values)) };
  }

  /**
   * The cached plan of `key` (made as `get` makes it) with its statements as templates, for a caller
   * that keeps them and fills in values itself (fillTemplate); undefined when the shape is not cacheable.
   */
  templates(key: string, values: readonly SqlValue[], plan: (values: readonly SqlValue[]) => PlannedShape<T>): { readonly value: T; readonly templates: readonly StatementTemplate[] } | undefined {
    return this.entry(key, values, plan);
  }

  private entry(key: string, values: readonly SqlValue[], plan: (values: readonly SqlValue[]) => PlannedShape<T>): { value: T; templates: StatementTemplate[] } | undefined {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      const placeholders = values.map((_, i) => `\u0000${this.nonce}:${i}\u0000`);
      const planned = plan(placeholders);
      const templates = planned.statements.map((s) => template(s, placeholders));
      if (templates.some((t) => t === undefined)) return undefined;
      entry = { value: planned.value, templates: templates as StatementTemplate[] };
      if (this.entries.size >= this.limit) this.entries.clear();
      this.entries.set(key, entry);
    }
    return entry;
  }
}

function template(q: CompiledQuery, placeholders: readonly string[]): StatementTemplate | undefined {
  const slots: number[] = [];
  for (const p of q.params) {
    const i = typeof p === 'string' ? placeholders.indexOf(p) : -1;
    if (i < 0 && typeof p === 'string' && placeholders.some((x) => p.includes(x))) return undefined;
    slots.push(i);
  }
  if (placeholders.some((x) => q.sql.includes(x))) return undefined;
  return { sql: q.sql, params: q.params, slots };
}

/** A template's statement with `values` in its slots. */
export function fillTemplate(t: StatementTemplate, values: readonly SqlValue[]): CompiledQuery {
  const params = t.params.slice();
  for (let i = 0; i < params.length; i++) {
    const slot = t.slots[i] as number;
    if (slot >= 0) params[i] = values[slot] as SqlValue;
  }
  return { sql: t.sql, params };
}
