/**
 * Concurrent writes share commits (src/db/sqlite/sqlite-group-commit.ts): requests in flight together are answered
 * exactly as if they had run one after the other, and a refused one leaves no trace.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let company: string;
beforeAll(async () => {
  t = await startTestService();
  company = t.companyIds[0] as string;
});
afterAll(() => t.close());

const commentCount = async (ecnId: string): Promise<{ rows: number; counter: number }> => {
  const rows = Number((await t.query('SELECT count(*) AS n FROM "engChangeNoticeComments" WHERE "engChangeNoticeId" = ?', [ecnId]))[0]?.['n']);
  const counter = Number((await t.query('SELECT "_count_engChangeNoticeComments" AS n FROM "engChangeNotices" WHERE "id" = ?', [ecnId]))[0]?.['n']);
  return { rows, counter };
};

test('30 POSTs in flight together: the valid ones are created, a repeated alternate key is a 409, nothing else changes', async () => {
  const eco = (await t.call('POST', `/companies(${company})/engChangeOrders`, { body: { description: 'concurrent tasks' } })).json;
  const url = `/companies(${company})/engChangeOrders(${eco.id})/engChangeOrderTasks`;
  // (engChangeOrderId, lineNo) is the tasks' alternate key: bodies 3, 13 and 23 take the same line number.
  const bodies = Array.from({ length: 30 }, (_, i) => (i % 10 === 3 ? { lineNo: 990000, description: `t${i}` } : { description: `t${i}` }));
  // SQLite: the transactions of one event-loop turn share a COMMIT (db/sqlite/sqlite-group-commit.ts) and run in queue
  // order; PostgreSQL runs them side by side on its connections, so which of the repeated bodies wins is open.
  const sqlite = t.service.engine.name === 'sqlite';
  const raw = sqlite ? t.service.db.raw : undefined;
  const exec = raw?.exec.bind(raw);
  let shared = 0;
  if (raw !== undefined && exec !== undefined) {
    raw.exec = (sql: string) => {
      if (sql === 'BEGIN IMMEDIATE') shared++;
      return exec(sql);
    };
  }
  const responses = await Promise.all(bodies.map((body) => t.call('POST', url, { body }))).finally(() => {
    if (raw !== undefined && exec !== undefined) raw.exec = exec;
  });
  const statuses = responses.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(28);
  const repeated = [statuses[3], statuses[13], statuses[23]];
  expect(repeated.filter((s) => s === 409)).toHaveLength(2);
  expect(responses[repeated.findIndex((s) => s === 409) * 10 + 3]?.json.error.code).toBe('Internal_EntityWithSameKeyExists');
  const lines = responses.filter((r, i) => r.status === 201 && i % 10 !== 3).map((r) => r.json.lineNo as number);
  expect(new Set(lines).size).toBe(27);
  if (sqlite) {
    // They did share commits (else this test would prove nothing about them).
    expect(shared).toBeGreaterThan(0);
    expect(shared).toBeLessThan(30);
    // The first body with the repeated line number wins (queue order); the two later ones conflict.
    expect(statuses[3]).toBe(201);
    expect([statuses[13], statuses[23]]).toEqual([409, 409]);
    // Line numbers were given out one after the other, as if the requests had run in turn.
    expect(lines).toEqual([...lines].sort((x, y) => x - y));
  }
  const stored = await t.query('SELECT count(*) AS n FROM "engChangeOrderTasks" WHERE "engChangeOrderId" = ?', [eco.id]);
  expect(Number(stored[0]?.['n'])).toBe(28);
});

test('a refused write among concurrent comment POSTs leaves no trace; line numbers and counters stay right', async () => {
  const ecn = (await t.call('POST', `/companies(${company})/engChangeNotices`, { body: {} })).json;
  const url = `/companies(${company})/engChangeNoticeComments`;
  const missing = '018f0000-0000-7000-8000-000000000001';
  const bodies = Array.from({ length: 30 }, (_, i) => ({ engChangeNoticeId: i % 10 === 3 ? missing : ecn.id, comment: `c${i}` }));
  const responses = await Promise.all(bodies.map((body) => t.call('POST', url, { body })));
  const statuses = responses.map((r) => r.status);
  expect([statuses[3], statuses[13], statuses[23]]).toEqual([400, 400, 400]);
  expect(statuses.filter((s) => s === 201)).toHaveLength(27);
  const lines = responses.filter((r) => r.status === 201).map((r) => r.json.lineNo as number);
  // In request order on SQLite (one writer, queue order); PostgreSQL's transactions commit in any order, each number once.
  const inOrder = t.service.engine.name === 'sqlite' ? lines : [...lines].sort((x, y) => x - y);
  expect(inOrder).toEqual(Array.from({ length: 27 }, (_, i) => (i + 1) * 10000));
  expect(await commentCount(ecn.id)).toEqual({ rows: 27, counter: 27 });
});

test('PATCHes in flight together with the same ETag: one wins (on SQLite the first), the others get 412', async () => {
  const ecn = (await t.call('POST', `/companies(${company})/engChangeNotices`, { body: {} })).json;
  const etag = ecn['@odata.etag'] as string;
  const responses = await Promise.all(
    ['A', 'B', 'C'].map((d) => t.call('PATCH', `/companies(${company})/engChangeNotices(${ecn.id})`, { body: { drawingNumber: `DWG-${d}` }, headers: { 'If-Match': etag } })),
  );
  const statuses = responses.map((r) => r.status);
  expect([...statuses].sort()).toEqual([200, 412, 412]);
  // SQLite runs them in queue order; PostgreSQL side by side, where the one that commits first wins.
  if (t.service.engine.name === 'sqlite') expect(statuses[0]).toBe(200);
  const winner = ['A', 'B', 'C'][statuses.indexOf(200)];
  expect((await t.call('GET', `/companies(${company})/engChangeNotices(${ecn.id})`)).json.drawingNumber).toBe(`DWG-${winner}`);
});
