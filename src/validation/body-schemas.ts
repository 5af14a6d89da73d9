/**
 * JSON Schemas of request bodies, generated from the model (one per entity type): the type, format,
 * length and enum members of every writable property. Presence rules (unknown, read-only, required)
 * are checked by `validate-body.ts` with messages of their own.
 */
import type { EntityType, Property } from '../edm/model.js';
import { assertNever } from '../util/assert-never.js';

type JsonSchema = Record<string, unknown>;

const INT32 = { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
const NUMERIC_STRING = { type: 'string', pattern: '^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$' };

/**
 * A string without the NUL character and without unpaired surrogates (ajv compiles patterns with the
 * `u` flag: the range matches only a surrogate that is not half of a pair). Neither is text: PostgreSQL
 * refuses NUL, and SQLite would store an unpaired surrogate as three replacement characters where
 * PostgreSQL stores one.
 */
const NO_NUL = '^[^\\u0000\\uD800-\\uDFFF]*$';

/** The JSON Schema of one property's value. */
export function propertySchema(p: Property): JsonSchema {
  let s: JsonSchema;
  const t = p.type;
  if (t.kind === 'enum') {
    s = { type: 'string', enum: t.enumType.members.map((m) => m.encoded) };
  } else {
    switch (t.name) {
      case 'Edm.Guid':
        s = { type: 'string', format: 'uuid' };
        break;
      case 'Edm.String':
        // No NUL character (U+0000): PostgreSQL's text cannot hold it, so neither engine stores one (uri/nul-character.ts); nor an unpaired surrogate.
        s = p.maxLength === undefined ? { type: 'string', pattern: NO_NUL } : { type: 'string', maxLength: p.maxLength, pattern: NO_NUL };
        break;
      case 'Edm.Boolean':
        s = { type: 'boolean' };
        break;
      case 'Edm.Int32':
        s = INT32;
        break;
      case 'Edm.Int64':
        s = { anyOf: [{ type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', pattern: '^[+-]?\\d{1,19}$' }] };
        break;
      case 'Edm.Decimal':
      case 'Edm.Double':
        s = { anyOf: [{ type: 'number' }, NUMERIC_STRING] };
        break;
      case 'Edm.Date':
        s = { type: 'string', format: 'date' };
        break;
      case 'Edm.DateTimeOffset':
        s = { type: 'string', format: 'date-time' };
        break;
      case 'Edm.TimeOfDay':
        s = { type: 'string', pattern: '^([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,12})?)?$' };
        break;
      case 'Edm.Stream':
        s = { not: {} };
        break;
      default:
        return assertNever(t.name, 'EDM type');
    }
  }
  return p.nullable ? { anyOf: [s, { type: 'null' }] } : s;
}

/** The schema of a body for an entity type: an object whose known members have the right types. */
export function bodySchema(type: EntityType): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const p of type.properties) if (p.storage.kind === 'column') properties[p.name] = propertySchema(p);
  return { type: 'object', properties };
}
