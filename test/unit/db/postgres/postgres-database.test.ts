/**
 * The PostgreSQL connections on a real server: values come back in SQLite's stored forms, statements
 * are prepared once per connection, and a transaction that throws leaves nothing behind.
 */
import { createTestDatabase, type TestDatabase } from '../../../helpers/postgres.js';
import { openPostgres } from '../../../../src/db/postgres/postgres-database.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('pgdb');
  await t.db.exec('CREATE TABLE "x" ("id" integer PRIMARY KEY, "name" text COLLATE "C")');
});
afterAll(() => t.drop());

const q = (sql: string, params: unknown[] = []) => ({ sql, params: params as never[] });

test('values come back as SQLite gives them: booleans 1/0, bigint as a number (a bigint past 2^53), JSON as its text', async () => {
  const row = await t.db.get(q(`SELECT (1 < 2) AS "yes", (1 > 2) AS "no", count(*) AS "n", 9007199254740993::bigint AS "big", json_build_array(1, 'a') AS "j", 2.5::float8 AS "f", 1.25::numeric AS "num", NULL::boolean AS "none"`));
  expect(row).toEqual({ yes: 1, no: 0, n: 1, big: 9007199254740993n, j: '[1, "a"]', f: 2.5, num: 1.25, none: null });
});

test('run answers the rows changed; a parameterised statement runs again with new values', async () => {
  expect(await t.db.run(q('INSERT INTO "x" ("id", "name") VALUES ($1, $2)', [1, 'a']))).toBe(1);
  expect(await t.db.run(q('INSERT INTO "x" ("id", "name") VALUES ($1, $2)', [2, 'b']))).toBe(1);
  expect(await t.db.all(q('SELECT "name" FROM "x" WHERE "id" >= $1 ORDER BY "id"', [1]))).toEqual([{ name: 'a' }, { name: 'b' }]);
});

test('a transaction that throws is rolled back; one that resolves is committed', async () => {
  await expect(
    t.db.transaction(async (tx) => {
      await tx.run(q('INSERT INTO "x" ("id", "name") VALUES ($1, $2)', [3, 'c']));
      throw new Error('no');
    }),
  ).rejects.toThrow('no');
  expect(await t.db.get(q('SELECT count(*) AS "n" FROM "x" WHERE "id" = $1', [3]))).toEqual({ n: 0 });
  await t.db.transaction((tx) => tx.run(q('INSERT INTO "x" ("id", "name") VALUES ($1, $2)', [3, 'c'])));
  expect(await t.db.get(q('SELECT count(*) AS "n" FROM "x" WHERE "id" = $1', [3]))).toEqual({ n: 1 });
});

test('a session gives rows as arrays', async () => {
  expect(await t.db.session((s) => s.rows(q('SELECT "id", "name" FROM "x" WHERE "id" = $1', [2])))).toEqual([[2, 'b']]);
});

test('every connection plans generically from its first statement, with the URL\'s own start-up options kept and its settings winning', async () => {
  const settings = 'SELECT current_setting(\'plan_cache_mode\') AS "plans", current_setting(\'search_path\') AS "path", current_setting(\'application_name\') AS "app", current_setting(\'statement_timeout\') AS "timeout"';
  expect(await t.db.get(q(settings))).toEqual({ plans: 'force_generic_plan', path: '"$user", public', app: 'ecn-odata', timeout: '0' });
  const url = new URL(t.url);
  url.searchParams.set('options', '-c search_path=pg_catalog,public');
  url.searchParams.set('application_name', 'from-url');
  const own = openPostgres(url.toString(), { statementTimeoutMs: 1500 });
  try {
    // Two at once: the second connection's first statement runs before anything else on it, too.
    const [a, b] = await Promise.all([own.get(q(settings)), own.get(q(settings))]);
    expect(a).toEqual({ plans: 'force_generic_plan', path: 'pg_catalog,public', app: 'from-url', timeout: '1500ms' });
    expect(b).toEqual(a);
  } finally {
    await own.close();
  }
});

test.each(['ssl=no-verify', 'ssl=true', 'sslmode=require'])('a URL asking for TLS (%s) gets TLS, as node-postgres reads the URL (the test server has none, so it refuses)', async (param) => {
  const own = openPostgres(`${t.url}?${param}`);
  try {
    await expect(own.get(q('SELECT 1 AS "one"'))).rejects.toThrow(/does not support SSL/);
  } finally {
    await own.close();
  }
});

test('a connection the server ended (57P01, FATAL) is not handed to the next statement, which the pool would do before the socket closes', async () => {
  const one = await createTestDatabase('pgdbended', { max: 1 });
  try {
    let removed = 0;
    one.db.pool.on('remove', () => removed++);
    await expect(one.db.session((s) => s.get(q('SELECT pg_terminate_backend(pg_backend_pid())')))).rejects.toMatchObject({ code: '57P01' });
    // At once, before the ended socket's close event: the only connection must not be this one.
    expect(await one.db.session((s) => s.get(q('SELECT 1 AS "one"')))).toEqual({ one: 1 });
    expect(removed).toBe(1);
  } finally {
    await one.drop();
  }
});
