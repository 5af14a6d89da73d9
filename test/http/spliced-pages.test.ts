/**
 * A collection page's entities get their expansions spliced into their JSON texts by the reader
 * (query/json-splice.ts); one entity read by key gets them spliced by the database. Both must write
 * the same entity: each entity of a page (server-driven pages, so the page is read as rows, and a
 * `$top` page) must equal, member for member and in the same order, the entity read by key with the
 * same `$expand`, for expansions with nested counts, nested expansions, single-valued ones (null
 * included) and the IEEE754Compatible and metadata=none formats.
 */
import { startTestService, type TestService } from '../helpers/test-service.js';

let t: TestService;
let base: string;

beforeAll(async () => {
  t = await startTestService();
  const companies = await t.call('GET', '/companies?$select=id,name');
  const cronus = (companies.json.value as { id: string; name: string }[]).find((c) => c.name.toUpperCase().includes('CRONUS'))?.id as string;
  base = `/companies(${cronus})`;
});
afterAll(() => t.close());

type Entity = Record<string, unknown>;

/** Every entity of the set with `expand`, following next links of pages of `pageSize`. */
async function pages(set: string, expand: string, headers: Record<string, string>, pageSize: number): Promise<{ entities: Entity[]; pages: number }> {
  const entities: Entity[] = [];
  let url: string | undefined = `${base}/${set}?$expand=${expand}`;
  let n = 0;
  while (url !== undefined) {
    const r = await t.call('GET', url, { headers: { ...headers, Prefer: `odata.maxpagesize=${pageSize}` } });
    expect(r.status).toBe(200);
    entities.push(...(r.json.value as Entity[]));
    const next = r.json['@odata.nextLink'] as string | undefined;
    url = next === undefined ? undefined : next.slice(next.indexOf(base));
    n++;
  }
  return { entities, pages: n };
}

/** The entity read by key, without its context. */
async function byKey(set: string, id: string, expand: string, headers: Record<string, string>): Promise<Entity> {
  const r = await t.call('GET', `${base}/${set}(${id})?$expand=${expand}`, { headers });
  expect(r.status).toBe(200);
  const { '@odata.context': _context, ...entity } = r.json as Entity;
  return entity;
}

const cases: Array<[string, string, string, Record<string, string>]> = [
  ['ECNs with comments and BOM lines', 'engChangeNotices', 'engChangeNoticeComments,engChangeNoticeBOMLines', {}],
  ['nested counts and options', 'engChangeNotices', 'engChangeNoticeComments($count=true;$top=2;$orderby=lineNo%20desc),engChangeNoticeBOMLines($select=lineNo,quantityPer;$count=true)', {}],
  ['IEEE754Compatible counts and decimals', 'engChangeNotices', 'engChangeNoticeComments($count=true),engChangeNoticeBOMLines', { Accept: 'application/json;IEEE754Compatible=true' }],
  ['metadata=none', 'engChangeNotices', 'engChangeNoticeBOMLines($count=true)', { Accept: 'application/json;odata.metadata=none' }],
  ['nested expansions', 'engChangeOrders', 'engChangeOrderTasks($expand=predecessors,assignedUser)', {}],
  ['single-valued expansions, null too', 'engChangeOrderTasks', 'engChangeOrder,assignedUser,workCenterGroup', {}],
];

describe.each(cases)('%s: a page writes each entity as a read by key does', (_name, set, expand, headers) => {
  test('server-driven pages', async () => {
    const { entities, pages: n } = await pages(set, expand, headers, 3);
    expect(n).toBeGreaterThan(1);
    for (const e of entities) expect(JSON.stringify(e)).toBe(JSON.stringify(await byKey(set, e.id as string, expand, headers)));
  });

  test('a $top page', async () => {
    const r = await t.call('GET', `${base}/${set}?$expand=${expand}&$top=4`, { headers });
    expect(r.status).toBe(200);
    const entities = r.json.value as Entity[];
    expect(entities.length).toBeGreaterThan(0);
    for (const e of entities) expect(JSON.stringify(e)).toBe(JSON.stringify(await byKey(set, e.id as string, expand, headers)));
  });
});
