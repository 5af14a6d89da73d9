/**
 * `"name"`: the identifier quoting SQLite and PostgreSQL share (SQL standard double quotes, a quote
 * doubled). Identifiers come from the model and the alias generator, so the memo stays small.
 */
const quoted = new Map<string, string>();

/** The quoted identifier. */
export function quoteIdentifier(name: string): string {
  let q = quoted.get(name);
  if (q === undefined) {
    q = `"${name.replace(/"/g, '""')}"`;
    if (quoted.size < 10_000) quoted.set(name, q);
  }
  return q;
}
