/**
 * A real HTTP webhook receiver on 127.0.0.1 for the event tests: answers validation handshakes (echoes
 * the token unless told otherwise), records every notification (headers, body, arrival order) and
 * answers it as the test's `notify` function decides: a status, or 'hang' (never answers).
 */
import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** A notification as received. */
export interface Received {
  readonly path: string;
  readonly webhookId: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly contentType: string;
  readonly body: string;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** How the receiver answers. */
export interface ReceiverBehaviour {
  /** Answer to a handshake: default 200 with the token; 'hang' never answers. */
  handshake?: (token: string) => { status: number; body: string; contentType?: string } | 'hang';
  /** Answer to a notification (its index among all notifications received so far); default 200. */
  notify?: (received: Received, index: number) => number | 'hang';
}

/** A running receiver. */
export interface Receiver {
  /** Base URL, e.g. `http://127.0.0.1:34567`; any path is accepted. */
  readonly url: string;
  /** Every notification, in arrival order (retries included). */
  readonly received: Received[];
  /** Notifications answered 2xx, in order. */
  readonly accepted: Received[];
  /** Handshake tokens received. */
  readonly handshakes: string[];
  /** Changes the behaviour from now on. */
  behave(behaviour: ReceiverBehaviour): void;
  /** Resolves when `predicate` holds (checked on every request and every 20 ms), rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

/** Verifies a Standard Webhooks signature header against a `whsec_` secret (what a receiver does). */
export function verifySignature(secret: string, r: Pick<Received, 'webhookId' | 'timestamp' | 'signature' | 'body'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${r.webhookId}.${r.timestamp}.${r.body}`).digest();
  return r.signature.split(' ').some((part) => {
    const [version, value] = part.split(',');
    if (version !== 'v1' || value === undefined) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(initial: ReceiverBehaviour = {}): Promise<Receiver> {
  let behaviour = initial;
  const received: Received[] = [];
  const accepted: Received[] = [];
  const handshakes: string[] = [];
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of waiters) w();
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const token = url.searchParams.get('validationToken');
      if (token !== null) {
        handshakes.push(token);
        const answer = behaviour.handshake?.(token) ?? { status: 200, body: token };
        wake();
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.body);
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = {
        path: url.pathname,
        webhookId: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        contentType: String(req.headers['content-type'] ?? ''),
        body,
        json,
      };
      received.push(r);
      const status = behaviour.notify?.(r, received.length - 1) ?? 200;
      if (status !== 'hang' && status >= 200 && status < 300) accepted.push(r);
      wake();
      if (status === 'hang') return;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    accepted,
    handshakes,
    behave: (b) => {
      behaviour = b;
    },
    waitFor: (predicate, timeoutMs = 10_000, what = 'the receiver condition') =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!predicate()) return;
          cleanup();
          resolve();
        };
        const poll = setInterval(check, 20);
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (received ${received.length}, accepted ${accepted.length})`));
        }, timeoutMs);
        const cleanup = (): void => {
          clearInterval(poll);
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
