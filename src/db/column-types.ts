/**
 * How each EDM type is stored, whatever the engine: its storage class, which each engine names with a
 * column type of its own. Enums are stored as their encoded member name, dates and times as ISO text in
 * UTC (so text order is time order), decimals as doubles, media as bytes (kept exactly).
 */
import type { Property } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';

/** What a stored property's values are, whatever the engine (each engine names its column type for it). */
export type StorageClass = 'text' | 'boolean' | 'int32' | 'int64' | 'double' | 'bytes';

/** The storage class of a stored property. */
export function storageClass(p: Property): StorageClass {
  if (p.type.kind === 'enum') return 'text';
  const name = p.type.name;
  switch (name) {
    case 'Edm.Guid':
    case 'Edm.String':
    case 'Edm.Date':
    case 'Edm.DateTimeOffset':
    case 'Edm.TimeOfDay':
      return 'text';
    case 'Edm.Boolean':
      return 'boolean';
    case 'Edm.Int32':
      return 'int32';
    case 'Edm.Int64':
      return 'int64';
    case 'Edm.Decimal':
    case 'Edm.Double':
      return 'double';
    case 'Edm.Stream':
      return 'bytes';
    default:
      return assertNever(name, 'EDM type');
  }
}
