/**
 * CSV cells to OData JSON values, by the property's type: a CSV cell is text, a POST body is typed
 * JSON. Whole numbers become numbers, `true`/`false` (or 1/0) booleans, an enum member may be written
 * as in metadata (`Pending Approval`) or encoded (`Pending_x0020_Approval`), and an empty cell means
 * the field is not given (its default applies). Anything else is passed on as text, so the body
 * validator reports it with the message the API gives.
 */
import type { EntityType, Property } from '../edm/model.js';
import { chooseFrom } from '../edm/suggest-name.js';

const WHOLE = /^[+-]?\d+$/;

/**
 * What is wrong with a header row: unknown or repeated columns (empty when it is fine). A read-only
 * column is not wrong: its cells are ignored, as a POST body's read-only values are (conventions §2).
 */
export function csvHeaderProblems(type: EntityType, names: readonly string[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const property = type.propertyByName.get(name);
    if (seen.has(name)) problems.push(`the column '${name}' appears twice.`);
    seen.add(name);
    if (property === undefined) {
      const writable = type.properties.filter((p) => p.storage.kind === 'column' && p.writable !== 'never').map((p) => p.name);
      problems.push(`the column '${name}' is not a property of ${type.name}; ${chooseFrom(name, writable, 'a writable property')}.`);
    }
  }
  return problems;
}

/** One cell as the JSON value a POST body would carry (undefined: not given). */
export function csvCellToJson(property: Property, cell: string): unknown {
  if (cell === '') return undefined;
  const type = property.type;
  if (type.kind === 'enum') {
    if (type.enumType.memberByEncoded.has(cell)) return cell;
    return type.enumType.members.find((member) => member.name === cell)?.encoded ?? cell;
  }
  switch (type.name) {
    case 'Edm.Int32':
      return WHOLE.test(cell) ? Number(cell) : cell;
    case 'Edm.Int64':
      return WHOLE.test(cell) && Number.isSafeInteger(Number(cell)) ? Number(cell) : cell;
    case 'Edm.Boolean': {
      const lower = cell.toLowerCase();
      return lower === 'true' || lower === '1' ? true : lower === 'false' || lower === '0' ? false : cell;
    }
    default:
      // Decimal and Double stay text (the schema takes numeric strings, and the digits the file wrote
      // are what Precision and Scale are checked on); strings, GUIDs, dates and times are text anyway.
      return cell;
  }
}

/** A CSV record (cells in header order) as a JSON body; `header` holds the column's property (checked by csvHeaderProblems). */
export function csvRecordToJson(header: readonly (Property | undefined)[], record: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (let i = 0; i < header.length; i++) {
    const property = header[i];
    if (property === undefined) continue;
    const value = csvCellToJson(property, record[i] ?? '');
    if (value !== undefined) body[property.name] = value;
  }
  return body;
}
