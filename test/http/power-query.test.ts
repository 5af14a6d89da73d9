/**
 * Excel's and Power BI's OData feed (Power Query `OData.Feed`), request by request, against the demo
 * data over a socket: its Accept header, `OData-MaxVersion: 4.0`, gzip, and the Basic credential (user
 * id and API token), sent the way .NET sends a NetworkCredential: first without, then again after a
 * 401 whose challenge names Basic, and from then on with every request. It reads the service document,
 * then `$metadata`, then every set of the service document to its last `@odata.nextLink` (a page size of
 * 5 makes the demo data span several pages). Conventions §1, §2, §9; research notes §12.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import zlib from 'node:zlib';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createExpressApp } from '../../src/http/express-app.js';
import { REPO_METADATA, startTestService, type TestService } from '../helpers/test-service.js';

const ACCEPT = 'application/json;odata.metadata=minimal;q=1.0,application/json;odata=minimalmetadata;q=0.9,application/atomsvc+xml;q=0.8,application/atom+xml;q=0.8,application/xml;q=0.7,text/plain;q=0.7';
const PAGE_SIZE = 5;

/** One exchange as the client saw it. */
interface Exchange {
  readonly url: string;
  readonly status: number;
  readonly credentials: boolean;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** Power Query's HTTP behaviour with a Basic credential. */
class PowerQuery {
  readonly log: Exchange[] = [];
  private preAuthenticate = false;

  constructor(private readonly basic: string) {}

  async get(url: string): Promise<Exchange> {
    const first = await this.send(url, this.preAuthenticate);
    if (first.status !== 401 || this.preAuthenticate || !/(^|,\s*)Basic /.test(String(first.headers['www-authenticate']))) return first;
    this.preAuthenticate = true;
    return this.send(url, true);
  }

  private send(url: string, credentials: boolean): Promise<Exchange> {
    const headers: Record<string, string> = {
      Accept: ACCEPT,
      'OData-MaxVersion': '4.0',
      'Accept-Encoding': 'gzip, deflate',
      'User-Agent': 'Microsoft.Data.Mashup (https://go.microsoft.com/fwlink/?LinkID=304225)',
      ...(credentials ? { Authorization: this.basic } : {}),
    };
    return new Promise((resolve, reject) => {
      http.get(url, { headers }, (res) => {
        const coding = res.headers['content-encoding'];
        const body = coding === 'gzip' ? res.pipe(zlib.createGunzip()) : res;
        const chunks: Buffer[] = [];
        body.on('data', (c: Buffer) => chunks.push(c));
        body.on('error', reject);
        body.on('end', () => {
          const exchange = { url, status: res.statusCode ?? 0, credentials, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') };
          this.log.push(exchange);
          resolve(exchange);
        });
      }).on('error', reject);
    });
  }
}

let t: TestService;
let server: http.Server;
let root: string;
beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-power-query-'));
  fs.cpSync(REPO_METADATA, path.join(dir, 'metadata'), { recursive: true });
  const serviceFile = path.join(dir, 'metadata', 'service.json');
  const settings = JSON.parse(fs.readFileSync(serviceFile, 'utf8'));
  settings.limits.pageSize = PAGE_SIZE;
  fs.writeFileSync(serviceFile, JSON.stringify(settings));
  t = await startTestService({ metadataDir: path.join(dir, 'metadata') });
  server = createExpressApp(t.service).listen(0, '127.0.0.1');
  await once(server, 'listening');
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2.0`;
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** An OData JSON response as Power Query needs it: 200, OData 4.0, minimal metadata, `@odata.context` first. */
function expectFeed(x: Exchange): Record<string, unknown> {
  expect({ url: x.url, status: x.status }).toEqual({ url: x.url, status: 200 });
  expect(x.headers['odata-version']).toBe('4.0');
  expect(x.headers['content-type']).toBe('application/json; odata.metadata=minimal');
  const json = JSON.parse(x.text) as Record<string, unknown>;
  expect(Object.keys(json)[0]).toBe('@odata.context');
  return json;
}

/** Reads a feed to its last nextLink; gives the rows and the number of pages. */
async function readAll(pq: PowerQuery, url: string): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let pages = 0;
  for (let next: string | undefined = url; next !== undefined; pages++) {
    const json = expectFeed(await pq.get(next));
    rows.push(...(json['value'] as Record<string, unknown>[]));
    next = json['@odata.nextLink'] as string | undefined;
    if (next !== undefined) expect(next.startsWith(`${root}/`)).toBe(true);
  }
  return { rows, pages };
}

const count = async (url: string): Promise<number> => Number((await t.call('GET', `${url}${url.includes('?') ? '&' : '?'}$count=true&$top=0`)).json['@odata.count']);

test('service document, $metadata, then every set to its last nextLink, with the Basic credential', async () => {
  const pq = new PowerQuery(`Basic ${Buffer.from(`ADMIN:${await t.token('ADMIN')}`).toString('base64')}`);
  const serviceDocument = expectFeed(await pq.get(`${root}/`));
  const metadata = await pq.get(`${root}/$metadata`);
  expect(metadata.status).toBe(200);
  expect(metadata.headers['content-type']).toBe('application/xml');
  expect(metadata.headers['content-encoding']).toBe('gzip');
  expect(metadata.text).toMatch(/^<\?xml[\s\S]*<edmx:Edmx Version="4.0"/);
  const sets = serviceDocument['value'] as { name: string; url: string }[];
  expect(sets.map((s) => s.name)).toEqual(expect.arrayContaining(['companies', 'engChangeNotices', 'engChangeOrderTasks']));
  let paged = 0;
  for (const set of sets) {
    const { rows, pages } = await readAll(pq, `${root}/${set.url}`);
    const expected = await count(`/${set.url}`);
    expect({ set: set.name, rows: rows.length }).toEqual({ set: set.name, rows: expected });
    const keys = rows.map((r) => JSON.stringify(r['id'] ?? r));
    expect(new Set(keys).size).toBe(keys.length);
    expect({ set: set.name, pages }).toEqual({ set: set.name, pages: Math.max(1, Math.ceil(expected / PAGE_SIZE)) });
    if (pages > 1) paged++;
  }
  expect(paged).toBeGreaterThanOrEqual(3);
  // The sequence: the public documents without credentials; the first set once without, answered 401
  // with a Basic challenge, then with them; everything after that with them, and no other 401.
  const unauthorized = pq.log.filter((x) => x.status === 401);
  expect(unauthorized).toHaveLength(1);
  expect(pq.log.slice(0, 4).map((x) => [x.url.slice(root.length), x.status, x.credentials])).toEqual([
    ['/', 200, false],
    ['/$metadata', 200, false],
    [`/${sets[0]?.url}`, 401, false],
    [`/${sets[0]?.url}`, 200, true],
  ]);
  expect(String(unauthorized[0]?.headers['www-authenticate'])).toContain('Basic realm="ecn-odata"');
  expect(pq.log.slice(4).every((x) => x.credentials && x.status === 200)).toBe(true);
  // Pages of 5 entities are over 1 KiB: they came gzipped, as Power Query asked.
  expect(pq.log.filter((x) => x.url.includes('engChangeNotices')).every((x) => x.headers['content-encoding'] === 'gzip')).toBe(true);
});

test('one company’s table by ?company=, followed to the end, keeps the company on every nextLink', async () => {
  const pq = new PowerQuery(`Basic ${Buffer.from(`admin@cronus.example:${await t.token('ADMIN')}`).toString('base64')}`);
  const { rows, pages } = await readAll(pq, `${root}/engChangeNotices?company=FABRIKAM`);
  expect(rows.length).toBe(await count('/engChangeNotices?company=FABRIKAM'));
  expect(pages).toBeGreaterThan(1);
  expect(pq.log.filter((x) => x.status === 200).every((x) => x.url.includes('company=FABRIKAM'))).toBe(true);
  const fabrikam = t.companyIds[1];
  const scoped = await readAll(pq, `${root}/companies(${fabrikam})/engChangeNotices`);
  expect(scoped.rows.map((r) => r['id'])).toEqual(rows.map((r) => r['id']));
});
