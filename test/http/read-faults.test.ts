/**
 * Read-side faults of issue 18 (item 5): impossible dates are 400, a `+` that breaks the syntax gets an
 * encoding hint (one in a time-zone offset stays valid), a value segment after a collection is named,
 * an unqualified bound action name points to the qualified one, and `mod` on decimals is the true
 * remainder (OData 4.01 Part 2 §5.1.1.2.5), not SQLite's integer `%`.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const PLUS_HINT = 'send %20 for a space and %2B for a plus';

describe('impossible dates', () => {
  test.each([
    ['creationDate eq 2023-02-30', '2023-02-30'],
    ['creationDate lt 2023-04-31', '2023-04-31'],
    ['creationDate eq 2023-02-29', '2023-02-29'],
    ['lastModifiedDateTime gt 2023-02-30T10:00:00Z', '2023-02-30T10:00:00Z'],
  ])('$filter=%s → 400 naming the literal', async (filter, literal) => {
    const r = await t.call('GET', `/engChangeNotices?$filter=${encodeURIComponent(filter)}`);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('BadRequest_InvalidRequestUrl');
    expect(r.json.error.message).toContain(literal);
    expect(r.json.error.message).toContain('does not exist');
  });

  test('a leap day of a leap year is a date', async () => {
    expect((await t.call('GET', `/engChangeNotices?$filter=${encodeURIComponent('creationDate eq 2024-02-29')}`)).status).toBe(200);
  });

  test('an impossible date in a body is a 400 naming the field, and nothing is created', async () => {
    const before = Number((await t.call('GET', '/engChangeNotices/$count')).text);
    const r = await t.call('POST', '/engChangeNotices', { body: { sourceType: 'Item', creationDate: '2023-02-30' } });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json.error)).toContain('creationDate');
    expect(Number((await t.call('GET', '/engChangeNotices/$count')).text)).toBe(before);
  });
});

describe("a '+' where a space was meant", () => {
  test.each([
    "$filter=status+eq+'New'",
    '$orderby=number+desc',
    '$select=number,+status',
  ])('%s → 400 that says how to encode', async (query) => {
    const r = await t.call('GET', `/engChangeNotices?${query}`);
    expect(r.status).toBe(400);
    expect(r.json.error.message).toContain(PLUS_HINT);
  });

  test('a + in a time-zone offset is still an offset', async () => {
    const r = await t.call('GET', "/engChangeNotices?$filter=lastModifiedDateTime%20gt%202000-01-01T00:00:00+01:00&$top=1");
    expect(r.status).toBe(200);
    expect(r.json.value).toHaveLength(1);
  });

  test('other syntax errors carry no hint', async () => {
    const r = await t.call('GET', "/engChangeNotices?$filter=status%20eq%20'New");
    expect(r.status).toBe(400);
    expect(r.json.error.message).not.toContain(PLUS_HINT);
  });
});

describe('path segments', () => {
  test('engChangeNotices/<guid> names the segment and shows the key form', async () => {
    const id = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0].id as string;
    const r = await t.call('GET', `/engChangeNotices/${id}`);
    expect(r.status).toBe(404);
    expect(r.json.error.message).toContain(`segment '${id}'`);
    expect(r.json.error.message).toContain(`engChangeNotices(${id})`);
  });

  test('an unqualified bound action name → 404 that names the qualified one', async () => {
    const id = (await t.call('GET', '/engChangeNotices?$top=1')).json.value[0].id as string;
    const r = await t.call('POST', `/engChangeNotices(${id})/createEngChangeOrder`);
    expect(r.status).toBe(404);
    expect(r.json.error.code).toBe('BadRequest_ResourceNotFound');
    expect(r.json.error.message).toContain('Microsoft.NAV.createEngChangeOrder');
  });
});

describe('mod with a decimal operand', () => {
  const numbers = async (filter: string): Promise<number[]> => {
    const r = await t.call('GET', `/engChangeNotices?$filter=${encodeURIComponent(filter)}&$select=sourceSequence&$top=20000`);
    expect(r.status).toBe(200);
    return r.json.value.map((e: { sourceSequence: number }) => e.sourceSequence);
  };

  test('sourceSequence mod 2.5 eq 0.5 selects exactly the rows whose true remainder is 0.5', async () => {
    const all = await numbers('sourceSequence ge 0');
    const expected = all.filter((n) => n % 2.5 === 0.5).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    expect((await numbers('sourceSequence mod 2.5 eq 0.5')).sort((a, b) => a - b)).toEqual(expected);
  });

  test('mod 0.5 is a number, never null', async () => {
    const all = await numbers('sourceSequence ge 0');
    expect((await numbers('sourceSequence mod 0.5 eq 0')).length).toBe(all.length);
  });

  test('integer mod keeps integer semantics (the sign of the dividend)', async () => {
    const all = await numbers('sourceSequence ge 0');
    expect((await numbers('-sourceSequence mod 3 eq -1')).sort((a, b) => a - b)).toEqual(all.filter((n) => n % 3 === 1).sort((a, b) => a - b));
  });
});
