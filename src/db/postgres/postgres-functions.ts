/**
 * The functions the PostgreSQL dialect calls, created in the database by the framework's migration
 * (SQLite registers JavaScript ones on each connection: db/sqlite/sqlite-functions.ts): Unicode case mapping
 * as JavaScript's toLowerCase/toUpperCase, regular expressions, time parts of stored ISO text, numbers
 * spelled as JavaScript spells them, ETags, and the error that ends a statement at a query limit.
 */
import { quoteIdentifier } from '../../sql/quote-identifier.js';

/** The SQLSTATE of odata_raise_limit, which postgres-errors.ts maps to the 400 of a query limit. */
export const QUERY_LIMIT_SQLSTATE = 'OD400';

/**
 * Collations for case mapping, best first: PG_UNICODE_FAST (PostgreSQL 18: full Unicode case mapping,
 * `ß` → `SS`, final sigma, as JavaScript), ICU's root locale (15-17: full mapping by the server's ICU
 * version), C.UTF-8 (17: simple mapping only, `ß` stays), else the database's own.
 */
export const CASE_COLLATIONS = ['pg_unicode_fast', 'und-x-icu', 'pg_c_utf8'] as const;

const q = quoteIdentifier;

/** CREATE OR REPLACE FUNCTION statements; `caseCollation` maps case (undefined: the database's default collation). */
export function postgresFunctionsSql(caseCollation: string | undefined): string {
  const collate = caseCollation === undefined ? '' : ` COLLATE ${q(caseCollation)}`;
  return `
CREATE OR REPLACE FUNCTION odata_tolower(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT lower($1${collate}) $$;
CREATE OR REPLACE FUNCTION odata_toupper(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT upper($1${collate}) $$;
CREATE OR REPLACE FUNCTION odata_matches(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT $1 ~ $2 $$;
-- Hour (0), minute (1) or second (2) of 'YYYY-MM-DDTHH:MM:SS.sssZ' or 'HH:MM[:SS[.f]]' (missing seconds are 0, as SQLite's strftime).
CREATE OR REPLACE FUNCTION odata_time_part(text, integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CAST(coalesce(nullif(substr($1, strpos($1, 'T') + 1 + 3 * $2, 2), ''), '0') AS integer) $$;
-- The seconds' fraction to the millisecond, computed as SQLite's strftime('%f') - seconds is (the same double arithmetic).
CREATE OR REPLACE FUNCTION odata_fractional_seconds(text) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(CAST(nullif(substr($1, strpos($1, 'T') + 7, 6), '') AS double precision), 0) - odata_time_part($1, 2) $$;
-- The weak ETag of a row version, as edm/etag.ts formatEtag writes it.
CREATE OR REPLACE FUNCTION odata_etag(bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 'W/"' || encode(convert_to(CAST($1 AS text), 'UTF8'), 'base64') || '"' $$;
-- String(x) in JavaScript: PostgreSQL's shortest digits (extra_float_digits >= 1), placed as ECMAScript's Number::toString places them.
CREATE OR REPLACE FUNCTION odata_number_text(x double precision) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE t text; sign text := ''; digits text; e integer; k integer; n integer;
BEGIN
  IF x IS NULL THEN RETURN NULL; END IF;
  IF x = 0 THEN RETURN '0'; END IF;
  IF x = 'NaN'::float8 THEN RETURN 'NaN'; END IF;
  IF x = 'Infinity'::float8 THEN RETURN 'Infinity'; END IF;
  IF x = '-Infinity'::float8 THEN RETURN '-Infinity'; END IF;
  t := CAST(x AS text);
  IF strpos(t, 'e') = 0 THEN RETURN t; END IF;
  IF x < 0 THEN sign := '-'; t := substr(t, 2); END IF;
  digits := replace(split_part(t, 'e', 1), '.', '');
  e := CAST(split_part(t, 'e', 2) AS integer);
  k := length(digits);
  n := e + 1;
  IF k <= n AND n <= 21 THEN RETURN sign || digits || repeat('0', n - k); END IF;
  IF 0 < n AND n <= 21 THEN RETURN sign || substr(digits, 1, n) || '.' || substr(digits, n + 1); END IF;
  IF -6 < n AND n <= 0 THEN RETURN sign || '0.' || repeat('0', -n) || digits; END IF;
  RETURN sign || substr(digits, 1, 1) || CASE WHEN k > 1 THEN '.' || substr(digits, 2) ELSE '' END || 'e' || CASE WHEN e < 0 THEN '-' ELSE '+' END || abs(e);
END $$;
-- JSON.stringify of a stored Decimal ('decimal': non-finite as null) or Double ('double': as OData's "NaN", "INF", "-INF").
CREATE OR REPLACE FUNCTION odata_json_number(double precision, text) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN $1 IS NULL THEN NULL
    WHEN $1 = 'NaN'::float8 OR $1 = 'Infinity'::float8 OR $1 = '-Infinity'::float8 THEN
      CASE WHEN $2 = 'double' THEN to_json(CASE WHEN $1 = 'NaN'::float8 THEN 'NaN' WHEN $1 > 0 THEN 'INF' ELSE '-INF' END) ELSE CAST('null' AS json) END
    ELSE CAST(odata_number_text($1) AS json)
  END $$;
-- Ends the statement with a query limit's message (an expanded collection past its cap).
CREATE OR REPLACE FUNCTION odata_raise_limit(text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = '${QUERY_LIMIT_SQLSTATE}', MESSAGE = $1;
END $$;
`;
}
