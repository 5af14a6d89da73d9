/**
 * Outbound HTTP for webhooks (handshakes and notifications) under the operator's policy: only public
 * addresses unless private ones are allowed, checked on the address the socket actually connects to
 * (a custom DNS lookup, so a name cannot resolve to one address when checked and another when used);
 * a time limit per request; redirects never followed (a 3xx is returned as it is); at most 64 KiB of
 * a response body kept. node:http rather than fetch, because fetch cannot check the connected address.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isNonPublicAddress } from './address-policy.js';

/** Why an outbound call failed without an HTTP answer. */
export type OutboundFailure = 'forbidden' | 'timeout' | 'network';

/** An outbound call that got no HTTP answer: a refused target, a timeout, or a network error. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

/** An HTTP answer (any status; 3xx are not followed). */
export interface OutboundResponse {
  readonly status: number;
  readonly contentType: string;
  /** The first 64 KiB of the body, as UTF-8. */
  readonly body: string;
}

/** One POST. */
export interface OutboundRequest {
  readonly url: URL;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Overall limit (connect, send, answer, body), ms; default: the client's. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What hooks and the delivery worker use to call out. */
export interface OutboundHttp {
  /** Resolves the URL's host; throws OutboundError ('forbidden' or 'network') unless every address is allowed. */
  checkDestination(url: URL): Promise<void>;
  /** POSTs; rejects with OutboundError when no HTTP answer arrives. */
  post(request: OutboundRequest): Promise<OutboundResponse>;
}

/** The policy of a client. */
export interface OutboundPolicy {
  readonly allowPrivate: boolean;
  /** Default time limit, ms. */
  readonly timeoutMs: number;
  /** Sockets kept per host (keep-alive). */
  readonly maxSockets: number;
}

const MAX_BODY_BYTES = 64 * 1024;

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** A node:http(s) client enforcing an OutboundPolicy. */
export class OutboundClient implements OutboundHttp {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(private readonly policy: OutboundPolicy) {
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: policy.maxSockets });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: policy.maxSockets });
  }

  /** Throws OutboundError('forbidden') for an address the policy refuses. */
  private checkAddress(address: string, host: string): void {
    if (this.policy.allowPrivate || !isNonPublicAddress(address)) return;
    const via = address === host ? '' : ` (it resolves to ${address})`;
    throw new OutboundError(
      'forbidden',
      `The host '${host}' is a private, loopback or link-local address${via}; such targets are refused unless the operator allows them (serve --webhooks-allow-private).`,
    );
  }

  async checkDestination(url: URL): Promise<void> {
    const host = hostOf(url);
    if (net.isIP(host) !== 0) return this.checkAddress(host, host);
    let addresses: dns.LookupAddress[];
    try {
      addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
    } catch (e) {
      throw new OutboundError('network', `The host '${host}' cannot be resolved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}).`);
    }
    for (const a of addresses) this.checkAddress(a.address, host);
  }

  /** dns.lookup that refuses disallowed addresses; net calls it with `all` true or false. */
  private readonly lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, verbatim: true }, (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => {
      if (err !== null) {
        callback(err, '', 0);
        return;
      }
      const list = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
      try {
        for (const a of list) this.checkAddress(a.address, hostname);
      } catch (refused) {
        callback(refused as NodeJS.ErrnoException, '', 0);
        return;
      }
      (callback as (e: null, a: string | dns.LookupAddress[], f?: number) => void)(null, address, family);
    });
  };

  post(request: OutboundRequest): Promise<OutboundResponse> {
    const { url } = request;
    const timeoutMs = request.timeoutMs ?? this.policy.timeoutMs;
    return new Promise<OutboundResponse>((resolve, reject) => {
      const host = hostOf(url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(new OutboundError('forbidden', `Only http and https URLs are called, not ${url.protocol}.`));
        return;
      }
      if (net.isIP(host) !== 0) {
        try {
          this.checkAddress(host, host);
        } catch (e) {
          reject(e as Error);
          return;
        }
      }
      const secure = url.protocol === 'https:';
      const body = Buffer.from(request.body, 'utf8');
      const req = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': String(body.length) },
        lookup: this.lookup,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      const timer = setTimeout(() => req.destroy(new OutboundError('timeout', `No complete answer within ${timeoutMs} ms.`)), timeoutMs);
      const fail = (e: Error): void => {
        clearTimeout(timer);
        reject(e instanceof OutboundError ? e : new OutboundError('network', e.message || e.name));
      };
      req.on('error', fail);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= MAX_BODY_BYTES) return;
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - kept));
          kept += chunk.length;
        });
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.end(body);
    });
  }

  /** Closes kept-alive sockets. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
