/**
 * How PostgreSQL's values come back to JavaScript: in the same forms SQLite gives (db/column-types.ts),
 * so rules, the JSON writer and tests see one storage whatever the engine. Booleans (conditions such as
 * a computed `exists`) as 1/0, bigint as a number (a bigint past 2^53, where a number would round),
 * JSON the database built as its text (spliced into responses, never parsed), numeric as a number.
 */
import pg from 'pg';

/** Type OIDs of the parsers below (pg_type.oid, fixed for built-in types). */
const OID = { bool: 16, int8: 20, json: 114, numeric: 1700, jsonb: 3802 } as const;

const text = (value: string): string => value;

function int8(value: string): number | bigint {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
}

/** The parsers of a pool's connections (passed as its `types`, so pg's global parsers stay untouched). */
export const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    if (format === 'binary') return pg.types.getTypeParser(oid, 'binary');
    switch (oid) {
      case OID.bool:
        return (value: string) => (value === 't' ? 1 : 0);
      case OID.int8:
        return int8;
      case OID.json:
      case OID.jsonb:
        return text;
      case OID.numeric:
        return Number;
      default:
        return pg.types.getTypeParser(oid, 'text');
    }
  }) as pg.CustomTypesConfig['getTypeParser'],
};
