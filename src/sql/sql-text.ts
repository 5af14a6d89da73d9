/**
 * Hand-written statements for the framework's own tables (users, tokens, outbox, notifications) that
 * every engine runs alike: a tagged template whose interpolated values become bound parameters in the
 * engine's placeholder style (`?` or `$1`), never text. Identifiers are written in the template, or
 * interpolated with `ident()` (a name from the model), which the dialect quotes.
 *
 *   const sql = sqlText(engine.dialect);
 *   engine.db.get(sql`SELECT "userId" FROM "_tokens" WHERE "tokenId" = ${id}`);
 *   engine.db.get(sql`SELECT "id" FROM ${ident(model.company.table)} WHERE "name" = ${name}`);
 */
import type { CompiledQuery } from './compile.js';
import type { Dialect } from './dialect.js';
import type { SqlValue } from './nodes.js';

/** An identifier to quote into the text (see `ident`). */
export class SqlIdentifier {
  constructor(readonly name: string) {}
}

/** A table or column name interpolated as a quoted identifier, not a parameter. */
export function ident(name: string): SqlIdentifier {
  return new SqlIdentifier(name);
}

/** A template tag producing compiled statements for `dialect`. */
export type SqlTag = (strings: TemplateStringsArray, ...values: (SqlValue | SqlIdentifier)[]) => CompiledQuery;

/**
 * The tag for `dialect`. The text of a call site without identifiers is joined once (a template's
 * strings array is the same object on every call).
 */
export function sqlText(dialect: Pick<Dialect, 'placeholder' | 'booleanValue' | 'quoteIdentifier'>): SqlTag {
  const texts = new WeakMap<TemplateStringsArray, string>();
  return (strings, ...values) => {
    const plain = !values.some((v) => v instanceof SqlIdentifier);
    let sql = plain ? texts.get(strings) : undefined;
    const params: SqlValue[] = [];
    if (sql === undefined) {
      sql = strings[0] ?? '';
      values.forEach((v, i) => {
        sql += v instanceof SqlIdentifier ? dialect.quoteIdentifier(v.name) : dialect.placeholder(params.push(v) - 1, v, false);
        sql += strings[i + 1] ?? '';
      });
      if (plain) texts.set(strings, sql);
      params.length = 0;
    }
    for (const v of values) if (!(v instanceof SqlIdentifier)) params.push(typeof v === 'boolean' ? dialect.booleanValue(v) : v);
    return { sql, params };
  };
}
