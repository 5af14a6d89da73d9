/**
 * An entity's JSON text completed by its reader: the database gives the object without its
 * expansions (`_json`, the row's first column) and the expansions' JSON texts as columns of their own,
 * and the reader splices them in before the object's closing brace (query/plan-select.ts
 * planSplicedSelect). On PostgreSQL the splice in SQL cost the server a fifth of the statement
 * (rtrim measures the text character by character, and each `||` copies the text so far) for a page
 * of ECNs with their comments and BOM lines expanded. In JavaScript the slice and the concatenations
 * make string ropes, flattened once when the page's texts are joined.
 */

/** The members to splice, in order: texts as they are, numbers the index of a row column whose value is JSON text. */
export type JsonSplice = readonly (string | number)[];

/** The row's entity JSON with the members spliced in. The object's last member is a scalar, so its text ends in exactly one '}'. */
export function splicedJson(row: readonly unknown[], splice: JsonSplice): string {
  let text = (row[0] as string).slice(0, -1);
  for (const part of splice) text += typeof part === 'string' ? part : String(row[part]);
  return `${text}}`;
}
