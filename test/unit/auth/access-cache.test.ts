/**
 * The access cache: a second request with the same token reads only the access version, and every
 * change to users, grants, tokens or companies, from this connection or another one (the command line
 * is another process), is seen by the next request.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startTestService, type TestService } from '../../helpers/test-service.js';

let dir: string;
let t: TestService;
let other: BetterSqlite3.Database;
let cronus: string;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'access-cache-'));
  t = await startTestService({ dbFile: path.join(dir, 'db.sqlite') });
  other = new BetterSqlite3(path.join(dir, 'db.sqlite'));
  cronus = t.companyIds[0] as string;
});

afterEach(async () => {
  await other.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const url = (): string => `/companies(${cronus})/engChangeNotices?$top=1&$select=number`;

test('a repeated request runs one access statement (the version) before its own read', async () => {
  const token = await t.token('KLEE');
  expect((await t.call('GET', url(), { token })).status).toBe(200);
  const before = t.service.db.statementCount;
  expect((await t.call('GET', url(), { token })).status).toBe(200);
  // the version check and the page itself
  expect(t.service.db.statementCount - before).toBe(2);
});

test('requests read from sockets in one event-loop turn share one version check (their read snapshot)', async () => {
  const token = await t.token('KLEE');
  const q = url().indexOf('?');
  const request = (turnSnapshot: boolean) =>
    t.service.handle({ method: 'GET', path: url().slice(0, q), rawQuery: url().slice(q + 1), headers: { authorization: `Bearer ${token}` }, serviceRootUrl: 'http://h/api/v2.0', requestId: 'r', turnSnapshot });
  expect((await request(true)).status).toBe(200);
  await new Promise((r) => setImmediate(r));
  const before = t.service.db.statementCount;
  const three = await Promise.all([request(true), request(true), request(true)]);
  expect(three.map((r) => r.status)).toEqual([200, 200, 200]);
  // one version check, then three pages
  expect(t.service.db.statementCount - before).toBe(4);
  // A request that does not join the turn's snapshot checks again.
  const after = t.service.db.statementCount;
  expect((await request(false)).status).toBe(200);
  expect(t.service.db.statementCount - after).toBe(2);
  // A revocation committed by another connection before a later turn's requests is seen by them.
  await new Promise((r) => setImmediate(r));
  other.prepare(`UPDATE "_tokens" SET "revokedAt" = ? WHERE "tokenId" = ?`).run(new Date().toISOString(), token.split('_')[1]);
  expect((await request(true)).status).toBe(401);
});

test('a token revoked by another connection is refused on the next request', async () => {
  const token = await t.token('KLEE');
  expect((await t.call('GET', url(), { token })).status).toBe(200);
  const tokenId = token.split('_')[1];
  other.prepare(`UPDATE "_tokens" SET "revokedAt" = ? WHERE "tokenId" = ?`).run(new Date().toISOString(), tokenId);
  const r = await t.call('GET', url(), { token });
  expect(r.status).toBe(401);
  expect(r.json.error.message).toContain('revoked token');
});

test('a cached token still expires on time', async () => {
  const token = await t.token('KLEE', 300);
  expect((await t.call('GET', url(), { token })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 350));
  const r = await t.call('GET', url(), { token });
  expect(r.status).toBe(401);
  expect(r.json.error.message).toContain('expired token');
});

test('grants and revocations by another connection apply to the next request', async () => {
  const token = await t.token('KLEE');
  const patch = (): Promise<{ status: number }> =>
    t.call('GET', `/companies(${cronus})/engChangeNotices?$top=1&$select=id`, { token }).then((r) =>
      t.call('PATCH', `/companies(${cronus})/engChangeNotices(${r.json.value[0].id})`, { token, body: { drawingNumber: 'D-1' }, headers: { 'if-match': '*' } }),
    );
  expect((await patch()).status).toBe(403);
  other.prepare(`INSERT INTO "_grants" ("userId", "companyId", "permissionSet") VALUES ('KLEE', ?, 'ECN-WRITE')`).run(cronus);
  expect((await patch()).status).toBe(200);
  other.prepare(`DELETE FROM "_grants" WHERE "userId" = 'KLEE'`).run();
  const r = await t.call('GET', url(), { token });
  expect(r.status).toBe(403);
  expect(r.json.error.code).toBe('Authorization_CompanyAccessDenied');
});

test('a company renamed or removed by another connection is seen by the next request', async () => {
  expect((await t.call('GET', `/engChangeNotices?company=CRONUS&$top=1&$select=number`)).status).toBe(200);
  other.prepare(`UPDATE "companies" SET "name" = 'CRONUS-RENAMED' WHERE "id" = ?`).run(cronus);
  // The old name now names no company: 403 as for a company without a grant.
  expect((await t.call('GET', `/engChangeNotices?company=CRONUS&$top=1&$select=number`)).status).toBe(403);
  expect((await t.call('GET', `/engChangeNotices?company=CRONUS-RENAMED&$top=1&$select=number`)).status).toBe(200);
});
