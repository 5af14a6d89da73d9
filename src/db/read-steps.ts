/**
 * The statements of one read and what each gives back, run the same way on the event loop
 * (db/sqlite/sqlite-database.ts) and in a read thread (db/sqlite/sqlite-read-worker.ts): a first row, a page of entity JSON texts
 * cut at the page size or the response budget, or a page of row objects for the JavaScript writer.
 */
import type { CompiledQuery } from '../sql/compile.js';
import { splicedJson, type JsonSplice } from '../query/json-splice.js';
import { assertNever } from '../util/assert-never.js';
import { ServiceUnavailableError } from '../errors/odata-error.js';
import { limitSetting } from '../edm/service-limits.js';

/** A row as the database returns it. */
export type StepRow = Record<string, unknown>;

/** One statement of a read. */
export type ReadStep =
  /** The first row, as an object. */
  | { readonly kind: 'row'; readonly query: CompiledQuery }
  /**
   * Rows `[entity JSON, key, version, sort values...]`: their JSON texts joined with commas, at most
   * `size` of them and no more once `budget` characters are reached (the row that passes it is kept).
   * With `splice`, each text is completed from the row's later columns first (query/json-splice.ts).
   */
  | { readonly kind: 'page'; readonly query: CompiledQuery; readonly size: number; readonly budget: number; readonly splice?: JsonSplice }
  /** Row objects, at most `size` and no more once their text values pass `budget` characters. */
  | { readonly kind: 'rows'; readonly query: CompiledQuery; readonly size: number; readonly budget: number };

/** What a step gave. */
export type StepResult =
  | { readonly kind: 'row'; readonly row: StepRow | undefined }
  | {
      readonly kind: 'page';
      /** The JSON texts joined with commas (UTF-8 bytes when a read thread sent a large page). */
      readonly entities: string | Uint8Array;
      readonly count: number;
      /** The last row read into the page (its key and sort values make the next link). */
      readonly last: unknown[] | undefined;
      /** Rows follow the page. */
      readonly more: boolean;
      /** The page ended at the budget before its size. */
      readonly cut: boolean;
    }
  | { readonly kind: 'rows'; readonly rows: StepRow[]; readonly more: boolean; readonly cut: boolean };

/** What running steps needs from a connection. */
export interface StepConnection {
  get(q: CompiledQuery): StepRow | undefined;
  /** Rows as arrays of column values, one at a time. */
  iterateRows(q: CompiledQuery): IterableIterator<unknown[]>;
  /** Rows as objects, one at a time. */
  iterate(q: CompiledQuery): IterableIterator<StepRow>;
}

/** The characters a row object's values take in JSON, roughly (strings by length, anything else 8). */
function rowSize(row: StepRow): number {
  let n = 0;
  for (const k in row) {
    const v = row[k];
    n += k.length + (typeof v === 'string' ? v.length : 8);
  }
  return n;
}

/** true when the iterator has another row (then ended): whether a page that stopped early has more. */
function another<T>(it: IterableIterator<T>): boolean {
  const next = it.next();
  if (next.done !== true) it.return?.();
  return next.done !== true;
}

/** Runs one step. */
export function runStep(conn: StepConnection, step: ReadStep): StepResult {
  switch (step.kind) {
    case 'row':
      return { kind: 'row', row: conn.get(step.query) };
    case 'page': {
      const it = conn.iterateRows(step.query);
      const parts: string[] = [];
      let chars = 0;
      let last: unknown[] | undefined;
      for (;;) {
        if (parts.length === step.size) return { kind: 'page', entities: parts.join(','), count: parts.length, last, more: another(it), cut: false };
        if (chars > step.budget) return { kind: 'page', entities: parts.join(','), count: parts.length, last, more: another(it), cut: true };
        const r = it.next();
        if (r.done === true) return { kind: 'page', entities: parts.join(','), count: parts.length, last, more: false, cut: false };
        const text = step.splice === undefined ? (r.value[0] as string) : splicedJson(r.value, step.splice);
        parts.push(text);
        chars += text.length + 1;
        last = r.value;
      }
    }
    case 'rows': {
      const it = conn.iterate(step.query);
      const rows: StepRow[] = [];
      let chars = 0;
      for (;;) {
        if (rows.length === step.size) return { kind: 'rows', rows, more: another(it), cut: false };
        if (chars > step.budget) return { kind: 'rows', rows, more: another(it), cut: true };
        const r = it.next();
        if (r.done === true) return { kind: 'rows', rows, more: false, cut: false };
        rows.push(r.value);
        chars += rowSize(r.value);
      }
    }
    default:
      return assertNever(step, 'read step');
  }
}

/** Runs the steps of one read, in order. */
export function runSteps(conn: StepConnection, steps: readonly ReadStep[]): StepResult[] {
  return steps.map((s) => runStep(conn, s));
}

/** How one read of a job ended: its results, or the error it alone raised. */
export type ReadOutcome = { readonly ok: true; readonly results: StepResult[] } | { readonly ok: false; readonly error: unknown };

/** The 503 of a read that ran out of its time (limits.requestTimeoutMs), on every engine. */
export function readTimeoutError(timeoutMs: number): ServiceUnavailableError {
  return new ServiceUnavailableError(
    `The request did not finish within ${timeoutMs} ms (${limitSetting('requestTimeoutMs')}) and was cancelled; try again later, or narrow it with $filter or $top.`,
    Math.max(1, Math.ceil(timeoutMs / 1000)),
  );
}
