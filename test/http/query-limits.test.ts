/**
 * Hostile input is refused early with a 400 (or 414), never a stack overflow or a stuck event loop.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

test('a 1 MB URL is 414', async () => {
  const r = await t.call('GET', `/engChangeNotices?$filter=number eq '${'x'.repeat(1024 * 1024)}'`);
  expect(r.status).toBe(414);
  expect(r.json.error.code).toBe('BadRequest_InvalidRequestUrl');
});

test('10,000 nested parentheses are a 400', async () => {
  const r = await t.call('GET', `/engChangeNotices?$filter=${'('.repeat(10_000)}number eq 'x'${')'.repeat(10_000)}`);
  expect(r.status).toBe(400);
  expect(r.json.error.target).toBe('$filter');
});

test('a 5,000-term and chain is a 400', async () => {
  const chain = Array.from({ length: 5000 }, (_, i) => `sourceSequence ne ${i}`).join(' and ');
  const r = await t.call('GET', `/engChangeNotices?$filter=${encodeURIComponent(chain)}`);
  expect([400, 414]).toContain(r.status);
});

test('syntax errors name the option and the position', async () => {
  const r = await t.call('GET', "/engChangeNotices?$filter=number eq 'x' and");
  expect(r.status).toBe(400);
  expect(r.json.error.code).toBe('BadRequest_InvalidRequestUrl');
  expect(r.json.error.target).toBe('$filter');
  expect(r.json.error.message).toMatch(/position \d+/);
});

test('$expand deeper than the configured limit is a 400', async () => {
  const r = await t.call('GET', '/engChangeNotices?$expand=engChangeNoticeComments($expand=engChangeNotice($expand=engChangeNoticeBOMLines($expand=engChangeNotice)))');
  expect(r.status).toBe(400);
  expect(r.json.error.message).toMatch(/limit is 3/);
});

test('type errors in $filter are 400 with a readable message', async () => {
  const r = await t.call('GET', "/engChangeNotices?$filter=sourceSequence eq 'five'");
  expect(r.status).toBe(400);
  expect(r.json.error.message).toMatch(/Cannot compare Edm.Int32 with Edm.String/);
});
