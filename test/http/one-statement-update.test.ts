/**
 * src/store/one-statement-update.ts on every engine: a PATCH that no rule, check or condition needs the
 * row for is one UPDATE ... RETURNING (the version and ETag computed by the statement, If-Match as its
 * condition); every other PATCH reads the row first, as before, and every answer (200, 404, 412, 428,
 * 400) is the one the two-statement path gives.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { recording } from '../helpers/recording-statements.js';
import type { CompiledQuery } from '../../src/sql/compile.js';
import type { Transaction } from '../../src/db/engine.js';

let t: TestService;
let base: string;
beforeAll(async () => {
  t = await startTestService();
  base = `/companies(${t.companyIds[0]})/engChangeNotices`;
});
afterAll(() => t.close());

type Json = Record<string, unknown>;

/** The statements the write transactions of `fn` ran. */
async function statementsOf(fn: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const engine = t.service.engine;
  const transaction = engine.transaction.bind(engine);
  engine.transaction = <T>(body: (tx: Transaction) => Promise<T>): Promise<T> => transaction((tx) => body({ ...recording(tx, seen), savepoint: tx.savepoint }));
  try {
    await fn();
  } finally {
    engine.transaction = transaction;
  }
  return seen;
}

async function newEcn(): Promise<Json> {
  const r = await t.call('POST', base, { body: { drawingNumber: 'D-ONE' } });
  expect(r.status).toBe(201);
  return r.json as Json;
}

const patch = (id: string, body: Json, headers: Record<string, string>) => t.call('PATCH', `${base}(${id})`, { body, headers });

test('a PATCH of a field no rule looks at, If-Match *, is one UPDATE ... RETURNING; its answer is what a GET then gives', async () => {
  const ecn = await newEcn();
  const id = ecn['id'] as string;
  let r: Awaited<ReturnType<typeof patch>> | undefined;
  const seen = await statementsOf(async () => (r = await patch(id, { drawingNumber: 'D-ONE-2' }, { 'If-Match': '*' })));
  expect(r?.status).toBe(200);
  expect(seen).toHaveLength(1);
  const q = seen[0] as CompiledQuery;
  const pg = t.service.engine.name === 'postgres';
  const p = (n: number): string => (pg ? `$${n}` : '?');
  // The new version: the clock's, or one past the stored one (its value bound once per place it is written).
  const stamp = (n: number): string => (pg ? `GREATEST(${p(n)}, ("engChangeNotices"."_version" + 1))` : `max(?, ("engChangeNotices"."_version" + 1))`);
  expect(q.sql).toMatch(
    new RegExp(
      `^UPDATE "engChangeNotices" SET "drawingNumber" = ${esc(p(1))}, "lastModifiedDateTime" = ${esc(p(2))}, "_version" = ${esc(stamp(3))}, "_etag" = odata_etag\\(${esc(stamp(4))}\\), "_etagOf" = ${esc(stamp(5))} ` +
        `WHERE \\(\\("engChangeNotices"\\."_companyId" = ${esc(p(6))}\\) AND \\("engChangeNotices"\\."id" = ${esc(p(7))}\\)\\) RETURNING `,
    ),
  );
  expect(q.params.slice(0, 2)).toEqual(['D-ONE-2', (r?.json as Json)['lastModifiedDateTime']]);
  const clock = q.params[2];
  expect(typeof clock).toBe('number');
  expect(q.params.slice(2, 5)).toEqual([clock, clock, clock]);
  expect(q.params.slice(5)).toEqual([t.companyIds[0], id]);
  const read = await t.call('GET', `${base}(${id})`);
  expect(r?.json).toEqual(read.json);
  expect(r?.headers['ETag']).toBe(read.headers['ETag']);
  expect(r?.headers['ETag']).not.toBe((ecn as Json)['@odata.etag']);
});

test('with the current ETag it is one statement conditional on that version; with an old one nothing changes and the answer is 412', async () => {
  const ecn = await newEcn();
  const id = ecn['id'] as string;
  const etag = ecn['@odata.etag'] as string;
  const seen = await statementsOf(async () => expect((await patch(id, { drawingNumber: 'D-V2' }, { 'If-Match': etag })).status).toBe(200));
  expect(seen).toHaveLength(1);
  expect(seen[0]?.sql).toMatch(/ AND \("engChangeNotices"\."_version" = (\$8|\?)\)\) RETURNING /);
  // The ETag from before that write names a version the row no longer has.
  const stale = await patch(id, { drawingNumber: 'D-V3' }, { 'If-Match': etag });
  expect(stale.status).toBe(412);
  expect(((await t.call('GET', `${base}(${id})`)).json as Json)['drawingNumber']).toBe('D-V2');
});

test('the answers the row decides are those of reading it first: 404, 428, 412 for If-None-Match, 400 for a key that differs', async () => {
  const ecn = await newEcn();
  const id = ecn['id'] as string;
  expect((await patch('00000000-0000-4000-8000-00000000dead', { drawingNumber: 'X' }, { 'If-Match': '*' })).status).toBe(404);
  expect((await patch('00000000-0000-4000-8000-00000000dead', { drawingNumber: 'X' }, { 'If-Match': 'W/"MQ=="' })).status).toBe(404);
  expect((await patch(id, { drawingNumber: 'X' }, {})).status).toBe(428);
  expect((await patch(id, { drawingNumber: 'X' }, { 'If-Match': '*', 'If-None-Match': '*' })).status).toBe(412);
  expect((await patch(id, { drawingNumber: 'X', id: '00000000-0000-4000-8000-00000000dead' }, { 'If-Match': '*' })).status).toBe(400);
  expect(((await t.call('GET', `${base}(${id})`)).json as Json)['drawingNumber']).toBe('D-ONE');
});

test('a field a rule looks at, a reference or a required null reads the row first, and the rule or check still answers', async () => {
  const ecn = await newEcn();
  const id = ecn['id'] as string;
  // status is in the ECN rule's validatesOnUpdate: read first, then the rule (Closed cannot be approved).
  expect((await patch(id, { status: 'Closed' }, { 'If-Match': '*' })).status).toBe(200);
  let r: Awaited<ReturnType<typeof patch>> | undefined;
  const seen = await statementsOf(async () => (r = await patch(id, { status: 'Approved' }, { 'If-Match': '*' })));
  expect(r?.status).toBe(400);
  expect(seen[0]?.sql).toMatch(/^SELECT /);
  expect(seen.some((q) => q.sql.startsWith('UPDATE'))).toBe(false);
  // A reference is looked up first: 400 naming it, nothing written.
  const missing = await patch(id, { changeReasonCode: 'NO-SUCH-REASON' }, { 'If-Match': '*' });
  expect(missing.status).toBe(400);
  expect(JSON.stringify(missing.json)).toContain('changeReasonCode');
  // A required field set to null answers as before.
  const required = await patch(id, { number: null }, { 'If-Match': '*' });
  expect(required.status).toBe(400);
});

/** `s` as a literal part of a regular expression. */
function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
