/**
 * The GETs of a batch that follow one another read one snapshot (batch/read-run.ts): their reads run
 * together, on the event loop when each is cheap, or in one read-thread job (one read transaction)
 * when any of them goes to a thread; each answers what it answers alone.
 */
import { jest } from '@jest/globals';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { metadataWithLimits, tempDbFile } from '../helpers/metadata-copy.js';
import { httpPart, multipart, readMultipart } from '../helpers/batch-bodies.js';

async function gets(t: TestService): Promise<string[]> {
  const ids = (await t.call('GET', '/engChangeNotices?$top=2&$select=id')).json.value.map((v: { id: string }) => v.id);
  return [`engChangeNotices(${ids[0]})`, `engChangeNotices(${ids[1]})?$expand=engChangeNoticeComments`, `engChangeNotices?$filter=engChangeNoticeComments/any(c:%20contains(c/comment,'rev'))&$top=3&$select=number`, 'engChangeNotices(2f0c0a6e-1b2c-4d5e-8f90-0123456789ab)'];
}

async function check(t: TestService): Promise<void> {
  const urls = await gets(t);
  const alone = await Promise.all(urls.map((u) => t.call('GET', `/${u}`)));
  const spy = jest.spyOn(t.service.engine.reads, 'runTogether');
  try {
    const r = await t.call('POST', '/$batch', { body: multipart('b', urls.map((u) => httpPart(`GET ${u}`))), headers: { 'Content-Type': 'multipart/mixed; boundary=b', Prefer: 'odata.continue-on-error' } });
    const parts = readMultipart(r.headers['Content-Type'] as string, r.text);
    expect(parts.map((p) => p.status)).toEqual([200, 200, 200, 404]);
    parts.forEach((p, i) => expect(JSON.parse(p.body)).toEqual(alone[i]?.json));
    // One run of four reads (the 404 too: it is found by its read).
    expect(spy.mock.calls.map((c) => c[0].length)).toEqual([4]);
  } finally {
    spy.mockRestore();
  }
}

test('cheap GETs: read together on the event loop, as alone', async () => {
  const t = await startTestService();
  try {
    await check(t);
  } finally {
    await t.close();
  }
});

test('GETs that go to a read thread: all four in one job, as alone', async () => {
  const t = await startTestService({ dbFile: tempDbFile(), metadataDir: metadataWithLimits({ maxInlineRows: 0 }) });
  try {
    await check(t);
  } finally {
    await t.close();
  }
});

test("limits.maxResponseBytes bounds a batch's whole answer: its GETs share it, each page ending early with a next link", async () => {
  const t = await startTestService({ metadataDir: metadataWithLimits({ maxResponseBytes: 65536, maxNestedEntities: 1000 }) });
  try {
    const comments = Array.from({ length: 600 }, (_, i) => ({ comment: `Comment ${i} ${'x'.repeat(60)}` }));
    expect((await t.call('POST', '/engChangeNotices', { body: { sourceType: 'Item', engChangeNoticeComments: comments }, headers: { Prefer: 'return=minimal' } })).status).toBe(204);
    const alone = await t.call('GET', '/engChangeNoticeComments');
    expect(alone.text.length).toBeGreaterThan(40_000); // one read alone may fill most of it
    const r = await t.call('POST', '/$batch', { body: multipart('b', Array.from({ length: 4 }, () => httpPart('GET engChangeNoticeComments'))), headers: { 'Content-Type': 'multipart/mixed; boundary=b' } });
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(65536 + 4 * 4096);
    const parts = readMultipart(r.headers['Content-Type'] as string, r.text);
    expect(parts.map((p) => p.status)).toEqual([200, 200, 200, 200]);
    for (const p of parts) expect(JSON.parse(p.body)['@odata.nextLink']).toMatch(/\$skiptoken=/);
  } finally {
    await t.close();
  }
});
