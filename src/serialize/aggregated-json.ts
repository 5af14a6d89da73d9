/**
 * Aggregated instances as OData JSON (Data Aggregation §3, JSON Format): each instance has the
 * grouping properties, nested along their navigation paths (`groupby((engChangeNotice/status))`
 * gives `{"engChangeNotice":{"status":"New"}}`), then the aggregated values under their aliases. The
 * instances are transient: no ETag, no id (with odata.metadata=full, `@odata.id` is null). The
 * context URL lists the same properties: `$metadata#engChangeNoticeBOMLines(engChangeNotice(status),total)`.
 */
import type { DbRow } from '../db/engine.js';
import { storedToJson } from '../edm/values.js';
import type { JsonFormat } from '../core/format.js';
import type { ResultColumn } from '../query/bound-ast.js';

/** One aggregated instance read from `row` (columns by their SQL alias). */
export function aggregatedToJson(columns: readonly ResultColumn[], row: DbRow, format: JsonFormat): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const full = format.metadata === 'full';
  if (full) out['@odata.id'] = null;
  for (const c of columns) {
    const value = c.type.kind === 'null' ? null : storedToJson(row[c.column], c.type, format);
    const path = c.name.split('/');
    let target = out;
    for (const segment of path.slice(0, -1)) {
      let next = target[segment] as Record<string, unknown> | undefined;
      if (next === undefined) {
        next = full ? { '@odata.id': null } : {};
        target[segment] = next;
      }
      target = next;
    }
    target[path[path.length - 1] as string] = value;
  }
  return out;
}

/** The select list of the context URL (JSON Format §10.9 for projected properties, nested per navigation). */
export function aggregatedContextSelect(columns: readonly ResultColumn[]): string[] {
  return selectList(columns.map((c) => c.name.split('/')));
}

function selectList(paths: readonly (readonly string[])[]): string[] {
  const order: string[] = [];
  const nested = new Map<string, string[][]>();
  for (const [head, ...rest] of paths) {
    if (head === undefined) continue;
    if (!order.includes(head)) order.push(head);
    if (rest.length > 0) nested.set(head, [...(nested.get(head) ?? []), rest]);
  }
  return order.map((head) => {
    const inner = nested.get(head);
    return inner === undefined ? head : `${head}(${selectList(inner).join(',')})`;
  });
}
