/**
 * How each EDM type is stored in SQLite (STRICT tables).
 * Enums are stored as their encoded member name, booleans as 0/1, dates and times as ISO text in UTC
 * (so text order is time order), decimals as REAL, media as BLOB (bytes kept exactly).
 */
import type { Property } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';

/** SQLite column type of a stored property. */
export function sqliteColumnType(p: Property): 'TEXT' | 'INTEGER' | 'REAL' | 'BLOB' {
  if (p.type.kind === 'enum') return 'TEXT';
  const name = p.type.name;
  switch (name) {
    case 'Edm.Guid':
    case 'Edm.String':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
      return 'TEXT';
    case 'Edm.Boolean':
    case 'Edm.Int32':
    case 'Edm.Int64':
      return 'INTEGER';
    case 'Edm.Decimal':
    case 'Edm.Double':
      return 'REAL';
    case 'Edm.Stream':
      return 'BLOB';
    default:
      return assertNever(name, 'EDM type');
  }
}
