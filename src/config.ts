/**
 * Service options and their defaults. Nothing else in the code reads the environment.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import type { JwtSettings } from './auth/jwt-verifier.js';

/** Webhook delivery of business events (conventions §6) and the outbound-call policy. */
export interface WebhookOptions {
  /** Run the delivery worker; false leaves events in the outbox (tests of other features, tools). */
  readonly deliver: boolean;
  /** Allow private, loopback and link-local targets (refused by default: server-side request forgery). */
  readonly allowPrivate: boolean;
  /** Time limit of one notification POST, ms. */
  readonly timeoutMs: number;
  /** Time limit of the validation handshake on subscribe, ms (5 s, as Business Central). */
  readonly handshakeTimeoutMs: number;
  /** Notifications in flight at once, over all subscriptions (each subscription has at most one). */
  readonly concurrency: number;
  /** Delay before each retry, ms; a notification fails after 1 + backoffMs.length attempts. */
  readonly backoffMs: readonly number[];
  /** How often the worker looks for work besides the signal after each commit, ms. */
  readonly pollMs: number;
  /** Base of the entity URLs in notifications (`url`), e.g. `https://ecn.example.com`; the service root path is appended. */
  readonly publicBaseUrl: string;
}

/** Webhook defaults: retries after 1, 1, 1, 10, 100 and 1,000 minutes (conventions §6), 10 s per request. */
export const DEFAULT_WEBHOOKS: WebhookOptions = {
  deliver: true,
  allowPrivate: false,
  timeoutMs: 10_000,
  handshakeTimeoutMs: 5_000,
  concurrency: 8,
  backoffMs: [1, 1, 1, 10, 100, 1000].map((minutes) => minutes * 60_000),
  pollMs: 1_000,
  publicBaseUrl: 'http://127.0.0.1:8080',
};

/** Options of a service instance. */
export interface ServiceOptions {
  /** Folder with service.json, entities/ and enums/. */
  readonly metadataDir: string;
  /** SQLite file, or `:memory:`, or a `postgres://` URL. */
  readonly dbFile: string;
  /** PostgreSQL: the most connections this process's pool opens (default 10); SQLite has none to set. */
  readonly dbConnections?: number;
  /** PostgreSQL read replicas (`postgres://` URLs of hot standbys) for GETs sent with `Data-Access-Intent: ReadOnly` (conventions §13). */
  readonly readReplicas?: readonly string[];
  /** Company (id or name) used by unscoped URLs when the request names none. */
  readonly defaultCompany?: string;
  /** Log level for pino ('silent' in tests). */
  readonly logLevel: string;
  /** JWT bearer tokens from an external issuer, when configured (opaque tokens always work). */
  readonly jwt?: JwtSettings;
  /** The service document and $metadata need no token (conventions §7). */
  readonly publicMetadata: boolean;
  /** Failed authentications allowed per client address and window before 429. */
  readonly authRateLimit: { readonly windowMs: number; readonly max: number };
  /** Webhook delivery (see WebhookOptions). */
  readonly webhooks: WebhookOptions;
  /** Origins whose browser apps may call the service (`https://app.example.com`); none: CORS is off (conventions §9). */
  readonly corsOrigins: readonly string[];
  /**
   * Shares each user's fair-use window with the other instances on the database (core/fair-use-sharing.ts);
   * `serve` sets it on a database file or server, which other processes may serve too.
   */
  readonly shareFairUse?: boolean;
}

/** The repository (or installed package) root: the nearest ancestor holding metadata/service.json. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'metadata', 'service.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('Cannot find the package root (no metadata/service.json above the code).');
    dir = parent;
  }
}

/** Default options: the packaged model, an in-memory database, info logs. */
export function defaultOptions(overrides: Partial<ServiceOptions> = {}): ServiceOptions {
  return {
    metadataDir: path.join(packageRoot(), 'metadata'),
    dbFile: ':memory:',
    logLevel: process.env['LOG_LEVEL'] ?? 'info',
    publicMetadata: true,
    authRateLimit: { windowMs: 15 * 60_000, max: 50 },
    webhooks: DEFAULT_WEBHOOKS,
    corsOrigins: [],
    ...overrides,
  };
}
