/**
 * matchesPattern() takes an ECMAScript regular expression (URL Conventions §5.1.1.7.1) on both engines:
 * SQLite runs it in JavaScript, PostgreSQL runs its translation into an ARE (db/postgres/postgres-regex.ts).
 * Every answer is compared with JavaScript's own RegExp over the same comments; a pattern that is no
 * ECMAScript regular expression is a 400 on both, and one PostgreSQL cannot translate faithfully a 501
 * there. Before, PostgreSQL read the pattern as an ARE (`\b` a backspace, `.` matching a line break,
 * `[[:alpha:]]` a class) and SQLite took an invalid pattern as matching nothing.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';
import { onPostgres } from '../helpers/postgres.js';

const postgres = onPostgres();
const TEXTS = ['tab\there', 'newline\nhere', 'nowhere', 'a.b', '[x]', 'abab', 'aa', 'xy', 'ab', 'Straße', 'café', 'smile 😀', 'A1', '١٢٣', 'no\u00a0break', 'a/b', 'ß', 'caret^', 'x_y z', ''];

let t: TestService;
let ecnId: string;
let comments: string[];
beforeAll(async () => {
  t = await startTestService();
  ecnId = (await t.call('POST', '/engChangeNotices', { body: { drawingNumber: 'patterns' } })).json.id;
  for (const comment of TEXTS) expect((await t.call('POST', `/engChangeNotices(${ecnId})/engChangeNoticeComments`, { body: { comment } })).status).toBe(201);
  comments = (await t.call('GET', `/engChangeNotices(${ecnId})/engChangeNoticeComments?$select=comment`)).json.value.map((c: { comment: string | null }) => c.comment ?? '');
});
afterAll(() => t.close());

const filterUrl = (pattern: string): string => `/engChangeNotices(${ecnId})/engChangeNoticeComments?$select=comment&$filter=${encodeURIComponent(`matchesPattern(comment,'${pattern.replace(/'/g, "''")}')`)}`;

test.each([
  '\\bhere', '\\Bhere', 'line.here', '^a', 'é$', '[a-c]+$', '\\d', '\\D', '^\\w+$', '\\s', '^\\S+$', '[\\d.]', 'a|y', '^(?:ab)+$', '(a)\\1', 'x(?=y)', '(?<=a)b',
  '(?<!a)b', '^a{2,3}$', '\\x41', '\\u00e9', '\\u{1F600}', '😀', '\\ud83d\\ude00', '[^a-z]', '\\.', '\\[x\\]', 'ß', '\\/', 'a*?b', '^.+$', '^$', '[\\^]', '[a\\-]', '\\cI', 'x_y\\x20z',
])('matchesPattern(comment, %j) answers as JavaScript does', async (pattern) => {
  const r = await t.call('GET', filterUrl(pattern));
  expect([pattern, r.status]).toEqual([pattern, 200]);
  const expected = comments.filter((c) => new RegExp(pattern, 'u').test(c)).sort();
  expect([pattern, r.json.value.map((c: { comment: string | null }) => c.comment ?? '').sort()]).toEqual([pattern, expected]);
});

test.each(['(', '[', 'a**', '\\y', '(?i)a', '\\Z', 'a{2', '[[:alpha:]]'])('matchesPattern(comment, %j): no ECMAScript regular expression → 400 on both engines', async (pattern) => {
  const r = await t.call('GET', filterUrl(pattern));
  expect([pattern, r.status, r.json.error.code]).toEqual([pattern, 400, 'BadRequest_InvalidRequestUrl']);
  expect(r.json.error.message).toMatch(/not an ECMAScript regular expression/);
});

test.each(['\\p{L}+', '(?<w>a)b', '[^]', '[]'])('matchesPattern(comment, %j): PostgreSQL has no faithful form → 501 there; SQLite answers as JavaScript does', async (pattern) => {
  const r = await t.call('GET', filterUrl(pattern));
  if (postgres) {
    expect([pattern, r.status]).toEqual([pattern, 501]);
    expect(r.json.error.message).toMatch(/matchesPattern\(\) on PostgreSQL cannot run/);
  } else {
    expect([pattern, r.status]).toEqual([pattern, 200]);
    expect(r.json.value.map((c: { comment: string | null }) => c.comment ?? '').sort()).toEqual(comments.filter((c) => new RegExp(pattern, 'u').test(c)).sort());
  }
});
