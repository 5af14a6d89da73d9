/**
 * An in-process service for tests: the real code on a fresh database with the demo data, driven through
 * `handle()` (no socket). `call()` returns status, headers and the parsed body. Framework tests run on
 * the fixture model (test/fixtures/metadata) with its rules (test/fixtures/rules.ts); tests of the
 * shipped application pass REPO_METADATA and get the demo's rule list.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createService, type Service } from '../../src/service.js';
import { DEFAULT_WEBHOOKS, defaultOptions, type WebhookOptions } from '../../src/config.js';
import { businessRules } from '../../src/rules/index.js';
import { seedDemoIfEmpty, seedDemoUsers } from '../../src/seed/demo.js';
import type { JwtSettings } from '../../src/auth/jwt-verifier.js';
import type { EntityHooks } from '../../src/hooks/types.js';
import { FIXTURE_METADATA, SHIPPED_METADATA } from '../fixtures/model.js';
import { FIXTURE_RULES } from '../fixtures/rules.js';
import { createEmptyDatabase, onPostgres } from './postgres.js';
import { staleEntityJson } from '../../src/db/postgres/postgres-stale-json.js';
import { staleSqliteEntityJson } from '../../src/db/sqlite/sqlite-entity-json.js';
import { setCountsOff } from '../../src/db/postgres/postgres-set-counts.js';
import { isPoolWait, isUnavailable } from '../../src/db/postgres/postgres-errors.js';

/** The shipped application's metadata folder (`metadata/`). */
export const REPO_METADATA = SHIPPED_METADATA;

/** The hook modules of a test service on `metadataDir` that names none (see startTestService). */
function defaultRules(metadataDir: string | undefined): readonly EntityHooks[] {
  return metadataDir !== undefined && path.resolve(metadataDir) === path.resolve(SHIPPED_METADATA) ? businessRules : FIXTURE_RULES;
}

/** A response as tests see it. */
export interface TestResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  /** Parsed JSON body (undefined when not JSON). */
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** Request options. */
export interface CallInit {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Bearer token to send; default: ADMIN's (SUPER in every demo company); null: no Authorization header. */
  readonly token?: string | null;
}

/** A test service with helpers. */
export interface TestService {
  readonly service: Service;
  readonly root: string;
  readonly companyIds: readonly string[];
  call(method: string, url: string, init?: CallInit): Promise<TestResponse>;
  /** Runs SQL with `?` placeholders on the service's engine (any engine: `$n` on PostgreSQL); the rows of a SELECT. */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** A fresh opaque token for a demo user (ADMIN, JSMITH, KLEE, PLANNER, AUDITOR). */
  token(userId: string, lifetimeMs?: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a service on an in-memory (or given) database, seeded with the demo data, on the fixture model
 * unless `metadataDir` names another; `rules` replaces the service's hook modules, which are otherwise
 * the demo's list (src/rules/index.ts) on REPO_METADATA itself and FIXTURE_RULES on any other model (the
 * fixture model, a test's copy of either), so that a module a team adds to the demo's list reaches only
 * the tests of the shipped application. Webhook delivery is off unless `webhooks` is given (then merged
 * over the defaults).
 */
export async function startTestService(
  opts: { metadataDir?: string; dbFile?: string; engine?: 'sqlite' | 'postgres'; seed?: boolean; defaultCompany?: string; rules?: readonly EntityHooks[]; jwt?: JwtSettings; authRateLimit?: { windowMs: number; max: number }; webhooks?: Partial<WebhookOptions>; corsOrigins?: readonly string[]; publicMetadata?: boolean; readReplicas?: readonly string[] } = {},
): Promise<TestService> {
  const webhooks: WebhookOptions = { ...DEFAULT_WEBHOOKS, deliver: false, ...opts.webhooks };
  // On the PostgreSQL run (jest.postgres.config.js project "postgres"), or when `engine` asks for it, a fresh
  // database of its own (dropped by close) instead of SQLite's memory.
  const engine = opts.engine ?? (onPostgres() ? 'postgres' : 'sqlite');
  const pg = opts.dbFile === undefined && engine === 'postgres' ? await createEmptyDatabase('svc') : undefined;
  const service = await createService(
    defaultOptions({
      metadataDir: opts.metadataDir ?? FIXTURE_METADATA,
      dbFile: opts.dbFile ?? pg?.url ?? ':memory:',
      logLevel: (process.env['ECN_TEST_LOG'] as 'error' | undefined) ?? 'silent',
      webhooks,
      ...(opts.defaultCompany ? { defaultCompany: opts.defaultCompany } : {}),
      ...(opts.jwt ? { jwt: opts.jwt } : {}),
      // Matrices of bad credentials from one address would trip the failed-authentication limit; the
      // tests of the limit pass their own.
      authRateLimit: opts.authRateLimit ?? { windowMs: 60_000, max: 1_000_000 },
      ...(opts.corsOrigins ? { corsOrigins: opts.corsOrigins } : {}),
      ...(opts.publicMetadata === false ? { publicMetadata: false } : {}),
      ...(opts.readReplicas ? { readReplicas: opts.readReplicas } : {}),
    }),
    opts.rules ?? defaultRules(opts.metadataDir),
  );
  const seeded = opts.seed === false ? undefined : await seedDemoIfEmpty(service.context);
  if (seeded !== undefined) await seedDemoUsers(service.context.users);
  const root = 'http://localhost/api/v2.0';
  const token = async (userId: string, lifetimeMs?: number): Promise<string> => (await service.context.tokens.issue(userId, lifetimeMs)).token;
  const adminToken = seeded === undefined ? undefined : await token('ADMIN');
  const call = async (method: string, url: string, init: CallInit = {}): Promise<TestResponse> => {
    const q = url.indexOf('?');
    const headers: Record<string, string> = {};
    if (init.token !== null) headers['authorization'] = `Bearer ${init.token ?? adminToken ?? (await token('ADMIN'))}`;
    for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
    let body: Buffer | undefined;
    if (init.body !== undefined) {
      body = Buffer.isBuffer(init.body) ? init.body : Buffer.from(typeof init.body === 'string' ? init.body : JSON.stringify(init.body), 'utf8');
      headers['content-type'] ??= 'application/json';
    }
    const res = await service.handle({
      method,
      path: q < 0 ? url : url.slice(0, q),
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      headers,
      body,
      serviceRootUrl: root,
      requestId: randomUUID(),
      clientAddress: '127.0.0.1',
    });
    const text = res.body === undefined ? '' : Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.body;
    // A header sent as several lines reads as one comma-joined value, as node's HTTP client gives it.
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) responseHeaders[k] = typeof v === 'string' ? v : v.join(', ');
    let json: unknown;
    if ((responseHeaders['Content-Type'] ?? '').startsWith('application/json') && text !== '') json = JSON.parse(text);
    return { status: res.status, headers: responseHeaders, text, json };
  };
  const company = service.model.company.table;
  const companyIds = seeded?.companyIds ?? (await service.engine.db.all({ sql: `SELECT "id" FROM ${service.engine.dialect.quoteIdentifier(company)} ORDER BY "name"`, params: [] })).map((r) => String(r['id']));
  const close = async (): Promise<void> => {
    // Every row's stored entity JSON must be what its columns and lookups give now, whatever the
    // suite wrote (db/postgres/postgres-entity-json.ts, db/sqlite/sqlite-entity-json.ts). A database
    // the suite made unreachable is not checked.
    const stale = await (service.engine.name === 'postgres' ? staleEntityJson : staleSqliteEntityJson)(service.engine.db, service.model).catch((e: unknown) => {
      if (isUnavailable(e) || isPoolWait(e) || (e as { message?: unknown } | null)?.message === 'The database connection is not open') return {};
      throw e;
    });
    if (Object.keys(stale).length > 0) {
      await service.close();
      await pg?.drop();
      throw new Error(`stored entity JSON out of date after the suite, rows per table: ${JSON.stringify(stale)}`);
    }
    if (service.engine.name === 'postgres') {
      // And every whole set's kept count must be its number of rows (db/postgres/postgres-set-counts.ts).
      const off = await setCountsOff(service.engine.db, service.model).catch((e: unknown) => {
        if (isUnavailable(e) || isPoolWait(e)) return [];
        throw e;
      });
      if (off.length > 0) {
        await service.close();
        await pg?.drop();
        throw new Error(`kept set counts wrong after the suite: ${off.join('; ')}`);
      }
    }
    await service.close();
    await pg?.drop();
  };
  const query = async (sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> => {
    let n = 0;
    const text = service.engine.name === 'postgres' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
    const q = { sql: text, params: params as never[] };
    if (/^\s*(SELECT|WITH)\b/i.test(sql)) return service.engine.db.all(q);
    await service.engine.db.run(q);
    return [];
  };
  return { service, root, companyIds, call, query, token, close };
}
