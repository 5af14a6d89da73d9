/**
 * Golden SQL: OData query options → the exact SQL and parameters our planner and compiler produce, then
 * executed on an in-memory database with the selected rows asserted. The data (golden-fixture.ts) has
 * nulls, quotes, `%`, `_`, backslashes, mixed case, Unicode and an injection attempt; a second company
 * holds a row with a colliding number that must never appear. Every expectation here was reviewed by hand
 * against the fixture, not copied from output.
 */
import { startGoldenService } from './golden-fixture.js';
import { compileQuery, run } from './golden-harness.js';
import type { Service } from '../../src/service.js';

let service: Service;
beforeAll(async () => {
  service = await startGoldenService();
});
afterAll(() => service.close());

import { cases } from './golden-cases.js';

test('at least 80 golden cases', () => expect(cases.length).toBeGreaterThanOrEqual(80));

test.each(cases)('$q', (c) => {
  const q = compileQuery(service, c.q);
  expect(q.sql).toBe(c.sql);
  expect(q.params).toEqual(c.params);
  expect(run(service, q).map((r) => r['number'])).toEqual(c.rows);
});

test('values only ever reach SQLite as parameters: the SQL text has no string literal but the LIKE escape and JSON member names of the model', () => {
  const names = new Set(service.model.entityTypes.flatMap((t) => [...t.properties.map((p) => p.name), ...t.navigations.map((n) => n.name)]));
  names.add('_version');
  let literals = 0;
  for (const c of cases) {
    const q = compileQuery(service, c.q);
    const text = q.sql.replace(/ ESCAPE '\\'/g, '');
    for (const m of text.matchAll(/'([^']*)'/g)) {
      expect(names).toContain(m[1]);
      literals++;
    }
    expect(text.replace(/'[^']*'/g, '')).not.toContain("'");
  }
  expect(literals).toBe(13);
});

test('the injection attempt is a value, and the table is still there', () => {
  const q = compileQuery(service, "$filter=drawingNumber%20eq%20'''%3B%20DROP%20TABLE%20engChangeNotices%3B%20--'");
  expect(run(service, q).map((r) => r['number'])).toEqual(['N08']);
  expect(run(service, compileQuery(service, '$top=1')).length).toBe(1);
});

test('expanded rows come back as JSON inside the one statement', () => {
  const one = run(service, compileQuery(service, "$select=number&$expand=engChangeNoticeComments($select=comment;$orderby=comment%20desc;$top=1)&$filter=number%20eq%20'N01'"));
  expect(JSON.parse(String(one[0]?.['engChangeNoticeComments'])).map((c: { comment: string }) => c.comment)).toEqual(['first']);
  const two = run(service, compileQuery(service, "$select=number&$expand=changeReason($select=description)&$filter=number%20in%20('N01','N03')"));
  expect(two.map((r) => (r['changeReason'] === null ? null : JSON.parse(String(r['changeReason'])).description))).toEqual(['Design improvement', null]);
  const three = run(service, compileQuery(service, "$select=number&$expand=engChangeNoticeBOMLines($filter=quantityPer%20gt%201;$select=quantityPer;$expand=engChangeNotice($select=number))&$filter=number%20eq%20'N01'"));
  const lines = JSON.parse(String(three[0]?.['engChangeNoticeBOMLines'])) as { quantityPer: number; engChangeNotice: { number: string } }[];
  expect(lines.map((l) => [l.quantityPer, l.engChangeNotice.number])).toEqual([[2, 'N01'], [8, 'N01']]);
});
