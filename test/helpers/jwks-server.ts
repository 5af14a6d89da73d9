/**
 * A JWKS endpoint on 127.0.0.1 for tests: generates RS256 and ES256 key pairs, serves their public
 * keys, signs tokens, and can rotate to a new key id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256';
  readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  readonly jwk: JWK;
}

/** A running JWKS server. */
export interface JwksServer {
  readonly url: string;
  readonly issuer: string;
  readonly fetches: () => number;
  /** Signs a token with the current key of `alg`. */
  sign(claims: Record<string, unknown>, opts?: { alg?: 'RS256' | 'ES256'; expiresIn?: string | number; audience?: string; issuer?: string }): Promise<string>;
  /** Adds a new key of `alg` (new kid) and makes it current; old keys stay published unless `dropOld`. */
  rotate(alg: 'RS256' | 'ES256', dropOld?: boolean): Promise<void>;
  close(): Promise<void>;
}

async function newKey(alg: 'RS256' | 'ES256', n: number): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: `${alg.toLowerCase()}-${n}`, alg, use: 'sig' };
  return { kid: jwk.kid, alg, privateKey, jwk };
}

/** Starts a JWKS server on a free loopback port. */
export async function startJwksServer(audience: string): Promise<JwksServer> {
  let keys: SigningKey[] = [await newKey('RS256', 1), await newKey('ES256', 1)];
  let counter = 1;
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const issuer = `http://127.0.0.1:${port}/issuer`;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    issuer,
    fetches: () => fetches,
    async sign(claims, opts = {}) {
      const alg = opts.alg ?? 'RS256';
      const key = [...keys].reverse().find((k) => k.alg === alg);
      if (key === undefined) throw new Error(`no ${alg} key`);
      return new SignJWT(claims)
        .setProtectedHeader({ alg, kid: key.kid })
        .setIssuer(opts.issuer ?? issuer)
        .setAudience(opts.audience ?? audience)
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? '5m')
        .sign(key.privateKey);
    },
    async rotate(alg, dropOld = false) {
      counter++;
      const k = await newKey(alg, counter);
      keys = dropOld ? [...keys.filter((x) => x.alg !== alg), k] : [...keys, k];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
