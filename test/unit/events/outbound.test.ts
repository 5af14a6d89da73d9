/**
 * src/events/outbound.ts against a local server: the address policy is applied to the address a name
 * resolves to when connecting (not only to literal addresses), redirects are returned, not followed,
 * the time limit covers a server that never answers, and only the first 64 KiB of a body are kept.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundClient, OutboundError } from '../../../src/events/outbound.js';

let server: http.Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
    else if (req.url === '/hang') return;
    else if (req.url === '/big') res.end('x'.repeat(200_000));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(OutboundError);
    return e as OutboundError;
  }
  throw new Error('expected an OutboundError');
}

test('without the allowance, loopback is refused by literal address and by name, before any request is sent', async () => {
  const strict = new OutboundClient({ allowPrivate: false, timeoutMs: 1000, maxSockets: 2 });
  try {
    const before = hits.length;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const e = await failure(strict.post({ url: new URL(`http://${host}/x`), body: '', headers: {} }));
      expect([e.kind, e.message]).toEqual(['forbidden', expect.stringContaining('private, loopback or link-local')]);
      expect((await failure(strict.checkDestination(new URL(`http://${host}/x`)))).kind).toBe('forbidden');
    }
    expect(hits.length).toBe(before);
    expect((await failure(strict.checkDestination(new URL('http://no-such-host.invalid/')))).kind).toBe('network');
  } finally {
    await strict.close();
  }
});

test('with the allowance: answers come back as they are; redirects are not followed; bodies are capped', async () => {
  const client = new OutboundClient({ allowPrivate: true, timeoutMs: 1000, maxSockets: 2 });
  try {
    await client.checkDestination(new URL(`http://localhost:${port}/`));
    const ok = await client.post({ url: new URL(`http://localhost:${port}/ok`), body: 'hello', headers: { 'content-type': 'text/plain' } });
    expect([ok.status, ok.body, ok.contentType]).toEqual([200, 'ok', 'text/plain']);
    const before = hits.length;
    const redirect = await client.post({ url: new URL(`http://127.0.0.1:${port}/redirect`), body: '', headers: {} });
    expect(redirect.status).toBe(302);
    expect(hits.slice(before)).toEqual(['/redirect']);
    const big = await client.post({ url: new URL(`http://127.0.0.1:${port}/big`), body: '', headers: {} });
    expect(big.body.length).toBe(64 * 1024);
    expect((await failure(client.post({ url: new URL(`ftp://127.0.0.1:${port}/`), body: '', headers: {} }))).kind).toBe('forbidden');
  } finally {
    await client.close();
  }
});

test('the time limit ends a request the server never answers', async () => {
  const client = new OutboundClient({ allowPrivate: true, timeoutMs: 100, maxSockets: 2 });
  try {
    const e = await failure(client.post({ url: new URL(`http://127.0.0.1:${port}/hang`), body: '', headers: {} }));
    expect([e.kind, e.message]).toEqual(['timeout', 'No complete answer within 100 ms.']);
  } finally {
    await client.close();
  }
});
