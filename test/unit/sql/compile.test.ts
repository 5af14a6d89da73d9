import BetterSqlite3 from 'better-sqlite3';
import { compile } from '../../../src/sql/compile.js';
import { sqliteDialect } from '../../../src/db/sqlite/sqlite-dialect.js';
import { and, col, constant, eq, param, select, bin } from '../../../src/sql/build.js';
import type { StatementNode } from '../../../src/sql/nodes.js';

function run(node: StatementNode): unknown[] {
  const db = new BetterSqlite3(':memory:');
  db.exec(`CREATE TABLE "item" ("id" TEXT PRIMARY KEY, "name" TEXT, "qty" INTEGER);
           INSERT INTO "item" VALUES ('a', 'O''Brien', 1), ('b', '100%_done', 2), ('c', NULL, 3);`);
  const q = compile(node, sqliteDialect);
  const stmt = db.prepare(q.sql);
  return stmt.reader ? stmt.all(...q.params) : [stmt.run(...q.params).changes];
}

describe('compile', () => {
  test('select with where, order, limit: exact SQL and parameters, then executed', () => {
    const node = select({
      columns: [{ expr: col('t0', 'id'), alias: 'id' }],
      from: { kind: 'table', table: 'item', alias: 't0' },
      where: and(bin('>', col('t0', 'qty'), param(1)), eq(col('t0', 'name'), param("O'Brien"))),
      orderBy: [{ expr: col('t0', 'id'), direction: 'ASC' }],
      limit: param(10),
    });
    const q = compile(node, sqliteDialect);
    expect(q.sql).toBe('SELECT "t0"."id" AS "id" FROM "item" AS "t0" WHERE (("t0"."qty" > ?) AND ("t0"."name" = ?)) ORDER BY "t0"."id" ASC LIMIT CAST(? AS INTEGER)');
    expect(q.params).toEqual([1, "O'Brien", 10]);
    expect(run(node)).toEqual([]);
    expect(run({ ...node, where: eq(col('t0', 'name'), param("O'Brien")) })).toEqual([{ id: 'a' }]);
  });

  test('values never reach the SQL text, even hostile ones', () => {
    const hostile = "x'); DROP TABLE item; --";
    const node = select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: 'item', alias: 't' }, where: eq(col('t', 'name'), param(hostile)) });
    const q = compile(node, sqliteDialect);
    expect(q.sql).not.toContain('DROP');
    expect(q.params).toEqual([hostile]);
    expect(run(node)).toEqual([]);
  });

  test('a name prints as a string literal, and anything that could end the literal is refused', () => {
    const named = (value: string): StatementNode => select({ columns: [{ expr: { kind: 'call', name: 'json_object', args: [{ kind: 'name', value }, col('t', 'qty')] }, alias: 'j' }], from: { kind: 'table', table: 'item', alias: 't' }, where: eq(col('t', 'id'), param('a')) });
    const q = compile(named('@odata.etag'), sqliteDialect);
    expect(q.sql).toBe(`SELECT json_object('@odata.etag', "t"."qty") AS "j" FROM "item" AS "t" WHERE ("t"."id" = ?)`);
    expect(q.params).toEqual(['a']);
    expect(run(named('quantity_2'))).toEqual([{ j: '{"quantity_2":1}' }]);
    for (const bad of ["x'", "x', 1) --", '', 'a b', 'a\\b', 'ä']) expect(() => compile(named(bad), sqliteDialect)).toThrow('not a name for an SQL literal');
  });

  test('identifiers are quoted with embedded quotes doubled', () => {
    expect(sqliteDialect.quoteIdentifier('a"b')).toBe('"a""b"');
  });

  test('LIKE prints its escape clause and binds the pattern', () => {
    const node = select({
      columns: [{ expr: col('t', 'id'), alias: 'id' }],
      from: { kind: 'table', table: 'item', alias: 't' },
      where: { kind: 'like', operand: col('t', 'name'), pattern: param('100\\%\\_%'), escape: '\\' },
    });
    const q = compile(node, sqliteDialect);
    expect(q.sql).toBe(`SELECT "t"."id" AS "id" FROM "item" AS "t" WHERE ("t"."name" LIKE ? ESCAPE '\\')`);
    expect(run(node)).toEqual([{ id: 'b' }]);
  });

  test('booleans bind as 0/1; offset without limit gets LIMIT -1', () => {
    const node = select({ columns: [{ expr: col('t', 'id'), alias: 'id' }], from: { kind: 'table', table: 'item', alias: 't' }, where: eq(param(true), constant(1)), orderBy: [{ expr: col('t', 'id'), direction: 'DESC' }], offset: param(1) });
    const q = compile(node, sqliteDialect);
    expect(q.sql).toBe('SELECT "t"."id" AS "id" FROM "item" AS "t" WHERE (? = 1) ORDER BY "t"."id" DESC LIMIT -1 OFFSET CAST(? AS INTEGER)');
    expect(q.params).toEqual([1, 1]);
    expect(run(node)).toEqual([{ id: 'b' }, { id: 'a' }]);
  });

  test('insert, update, delete', () => {
    const ins: StatementNode = { kind: 'insert', table: 'item', columns: ['id', 'name', 'qty'], values: [param('d'), param(null), param(4)] };
    expect(compile(ins, sqliteDialect)).toEqual({ sql: 'INSERT INTO "item" ("id", "name", "qty") VALUES (?, ?, ?)', params: ['d', null, 4] });
    expect(run(ins)).toEqual([1]);
    const upd: StatementNode = { kind: 'update', table: 'item', set: [{ column: 'qty', value: param(9) }], where: eq(col('item', 'id'), param('a')) };
    expect(compile(upd, sqliteDialect)).toEqual({ sql: 'UPDATE "item" SET "qty" = ? WHERE ("item"."id" = ?)', params: [9, 'a'] });
    expect(run(upd)).toEqual([1]);
    const del: StatementNode = { kind: 'delete', table: 'item', where: { kind: 'isNull', operand: col('item', 'name'), negated: false } };
    expect(compile(del, sqliteDialect)).toEqual({ sql: 'DELETE FROM "item" WHERE ("item"."name" IS NULL)', params: [] });
    expect(run(del)).toEqual([1]);
  });

  test('an insert written only if a condition holds: INSERT ... SELECT ... WHERE, a row or none', () => {
    const guarded = (name: string): StatementNode => ({
      kind: 'insert',
      table: 'item',
      columns: ['id', 'name', 'qty'],
      values: [param(`copy of ${name}`), param(name), param(5)],
      onlyIf: { kind: 'exists', query: select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: 'item', alias: 'r0' }, where: eq(col('r0', 'name'), param(name)) }), negated: false },
    });
    expect(compile(guarded("O'Brien"), sqliteDialect)).toEqual({
      sql: 'INSERT INTO "item" ("id", "name", "qty") SELECT ?, ?, ? WHERE EXISTS (SELECT 1 AS "one" FROM "item" AS "r0" WHERE ("r0"."name" = ?))',
      params: ["copy of O'Brien", "O'Brien", 5, "O'Brien"],
    });
    expect(run(guarded("O'Brien"))).toEqual([1]);
    expect(run(guarded('nobody'))).toEqual([0]);
  });

  test('exists, subquery, case, in-list, call and cast', () => {
    const sub = select({ columns: [{ expr: constant(1) }], from: { kind: 'table', table: 'item', alias: 's' }, where: eq(col('s', 'id'), col('t', 'id')) });
    const node = select({
      columns: [
        { expr: { kind: 'exists', query: sub, negated: false }, alias: 'e' },
        { expr: { kind: 'case', whens: [{ when: eq(col('t', 'qty'), param(1)), then: param('one') }], otherwise: param('many') }, alias: 'c' },
        { expr: { kind: 'call', name: 'coalesce', args: [col('t', 'name'), param('')] }, alias: 'n' },
        { expr: { kind: 'cast', operand: col('t', 'qty'), type: 'TEXT' }, alias: 'q' },
      ],
      from: { kind: 'table', table: 'item', alias: 't' },
      where: { kind: 'inList', operand: col('t', 'id'), items: [param('a'), param('c')], negated: false },
      orderBy: [{ expr: col('t', 'id'), direction: 'ASC' }],
    });
    const q = compile(node, sqliteDialect);
    expect(q.sql).toBe(
      'SELECT EXISTS (SELECT 1 FROM "item" AS "s" WHERE ("s"."id" = "t"."id")) AS "e", CASE WHEN ("t"."qty" = ?) THEN ? ELSE ? END AS "c", ' +
        'coalesce("t"."name", ?) AS "n", CAST("t"."qty" AS TEXT) AS "q" FROM "item" AS "t" WHERE ("t"."id" IN (?, ?)) ORDER BY "t"."id" ASC',
    );
    expect(q.params).toEqual([1, 'one', 'many', '', 'a', 'c']);
    expect(run(node)).toEqual([
      { e: 1, c: 'one', n: "O'Brien", q: '1' },
      { e: 1, c: 'many', n: '', q: '3' },
    ]);
  });
});

describe('cancellable statements (read threads)', () => {
  const inner = select({ columns: [{ expr: constant(1) }], from: { kind: 'table', table: 'item', alias: 'i' }, where: eq(col('i', 'qty'), col('o', 'qty')) });
  const node = select({
    columns: [{ expr: col('o', 'id'), alias: 'id' }],
    from: { kind: 'table', table: 'item', alias: 'o' },
    where: { kind: 'exists', query: inner, negated: false },
  });

  test('the liveness check is the first condition of the statement and of every SELECT with one inside, not of the innermost', () => {
    const q = compile(node, sqliteDialect, { cancellable: true });
    expect(q.sql).toBe('SELECT "o"."id" AS "id" FROM "item" AS "o" WHERE (odata_live() AND EXISTS (SELECT 1 FROM "item" AS "i" WHERE ("i"."qty" = "o"."qty")))');
    const plain = select({ columns: [{ expr: col('o', 'id') }], from: { kind: 'table', table: 'item', alias: 'o' } });
    expect(compile(plain, sqliteDialect, { cancellable: true }).sql).toBe('SELECT "o"."id" FROM "item" AS "o" WHERE odata_live()');
    expect(compile(node, sqliteDialect).sql).not.toContain('odata_live');
  });

  test('the check runs per row examined, so a statement whose time is up fails on the next rows', () => {
    const db = new BetterSqlite3(':memory:');
    db.exec('CREATE TABLE "item" ("id" TEXT PRIMARY KEY, "name" TEXT, "qty" INTEGER)');
    const insert = db.prepare('INSERT INTO "item" VALUES (?, ?, ?)');
    for (let i = 0; i < 500; i++) insert.run(`k${i}`, 'x', i % 7);
    let calls = 0;
    let allowed = Infinity;
    db.function('odata_live', { deterministic: false }, () => {
      if (++calls > allowed) throw new Error('deadline passed');
      return 1;
    });
    const q = compile(node, sqliteDialect, { cancellable: true });
    expect(db.prepare(q.sql).all(...q.params)).toHaveLength(500);
    expect(calls).toBe(500);
    calls = 0;
    allowed = 10;
    expect(() => db.prepare(q.sql).all(...q.params)).toThrow('deadline passed');
    expect(calls).toBe(11);
  });
});
