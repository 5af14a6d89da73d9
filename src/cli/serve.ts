/**
 * `ecn-odata serve`: starts the HTTP service (optionally seeding the demo data into an empty database)
 * and prints the service root URL once it listens. Anything that keeps it from starting (a bad option, a
 * database it cannot open or write, a busy port) is a StartupError: one line, exit code 1.
 */
import fs from 'node:fs';
import http, { type Server } from 'node:http';
import path from 'node:path';
import { defaultOptions } from '../config.js';
import { createService, type Service } from '../service.js';
import { createRequestListener } from '../http/express-app.js';
import { GracefulStop } from '../http/graceful-stop.js';
import { isOrigin } from '../http/cors.js';
import { businessRules } from '../rules/index.js';
import { DEMO_DEFAULT_COMPANY, seedDemoIfEmpty, seedDemoUsers } from '../seed/demo.js';
import { DEFAULT_WEBHOOKS, type ServiceOptions, type WebhookOptions } from '../config.js';
import { intFlag, parseFlags, UsageError } from './args.js';
import { databaseFailure, isDatabaseFailure, StartupError } from './startup-error.js';
import { watch } from './watch.js';
import { demoToken, type DemoToken } from './demo-token.js';
import { DatabaseLocationError, parseDatabaseLocation, redactUrl } from '../db/database-location.js';
import { applyServerTimeouts } from '../http/server-timeouts.js';
import { DOCS_PATH } from '../site/docs-page.js';
import { isServeWorker, MAX_WORKERS, runWorkers, tellPrimary } from './serve-workers.js';

/** Help text of `serve`. */
export const SERVE_HELP = `Usage: ecn-odata serve [options]

Starts the OData service.

Options:
  --port N              TCP port (default 8080)
  --host H              address to listen on (default 127.0.0.1)
  --db FILE|URL         SQLite database file (default data/ecn.sqlite; created if missing), or a
                        PostgreSQL URL (postgres://user:password@host:5432/database)
  --db-connections N    PostgreSQL: the most connections each process opens (2-1000, default 10);
                        with --workers, each worker opens its own
  --read-replica URL    PostgreSQL: a hot standby of --db that answers GETs sent with
                        Data-Access-Intent: ReadOnly while its lag is within limits.maxReplicaLagMs;
                        repeatable (each gets a pool of --db-connections)
  --seed demo           seed the demo data when the database is empty
  --workers N           run N worker processes on the port (1-64), after preparing the database once;
                        a worker that dies is restarted; needs a database file or PostgreSQL URL
  --metadata DIR        model folder (default: the packaged metadata/)
  --default-company C   company (id or name) for unscoped URLs without ?company=
  --log-level L         pino level: fatal, error, warn, info, debug, silent (default info)
  --jwt-issuer URL      accept JWTs from this issuer (with --jwt-audience and --jwt-jwks-url)
  --jwt-audience A      the audience JWTs must name
  --jwt-jwks-url URL    where the issuer publishes its signing keys (JWKS)
  --jwt-user-claim C    the claim that names the user (default preferred_username)
  --jwt-clock-skew S    seconds of clock skew tolerated on exp/nbf (default 60)
  --jwt-authorization-uri URL  the issuer's OAuth 2.0 authorize endpoint, named in 401 challenges
                        (authorization_uri) for Excel's and Power BI's Organizational account
  --protect-metadata    require a token for the service document and $metadata too
  --cors-origin URL     let browser apps of this origin (https://app.example.com) call the service;
                        repeatable (default: none, CORS is off)
  --public-url URL      base URL clients reach the service at, for entity URLs in webhook
                        notifications (default http://<host>:<port>)
  --webhooks-allow-private  allow webhook targets on private, loopback and link-local addresses
  --webhooks-timeout MS     time limit of one notification POST (default 10000)
  --webhooks-backoff LIST   retry delays in ms, comma-separated (default 1, 1, 1, 10, 100, 1000 minutes)
  --watch               restart on changes to the model folder or the compiled rules, after checking
                        them (ecn-odata check); a change that fails the check keeps the last good service
  --no-compile          with --watch: do not run tsc --watch on src/ (watch the compiled dist/ only)
  -h, --help            show this help`;

/** The log levels of pino that `--log-level` takes. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Runs `serve`; resolves once listening; rejects with a StartupError when it cannot start. */
export async function serve(argv: string[]): Promise<Server | undefined> {
  try {
    return await startServing(argv);
  } catch (e) {
    const failure = e instanceof UsageError ? new StartupError(e.message) : e;
    // A worker's failure is printed once, by the primary (serve-workers.ts).
    if (failure instanceof StartupError && isServeWorker()) {
      await tellPrimary({ kind: 'failed', message: failure.message });
      process.exit(1);
    }
    throw failure;
  }
}

async function startServing(argv: string[]): Promise<Server | undefined> {
  const { values, help } = parseFlags('serve', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    db: { type: 'string' },
    seed: { type: 'string' },
    metadata: { type: 'string' },
    'default-company': { type: 'string' },
    'log-level': { type: 'string' },
    'jwt-issuer': { type: 'string' },
    'jwt-audience': { type: 'string' },
    'jwt-jwks-url': { type: 'string' },
    'jwt-user-claim': { type: 'string' },
    'jwt-clock-skew': { type: 'string' },
    'jwt-authorization-uri': { type: 'string' },
    'protect-metadata': { type: 'boolean' },
    'cors-origin': { type: 'string', multiple: true },
    'public-url': { type: 'string' },
    'webhooks-allow-private': { type: 'boolean' },
    'webhooks-timeout': { type: 'string' },
    'webhooks-backoff': { type: 'string' },
    watch: { type: 'boolean' },
    'no-compile': { type: 'boolean' },
    workers: { type: 'string' },
    'db-connections': { type: 'string' },
    'read-replica': { type: 'string', multiple: true },
  });
  if (help) {
    console.log(SERVE_HELP);
    return undefined;
  }
  if (values['watch'] === true) {
    const serveArgs = argv.filter((arg) => arg !== '--watch' && arg !== '--no-compile');
    const metadataDir = typeof values['metadata'] === 'string' ? values['metadata'] : defaultOptions().metadataDir;
    await watch({ serveArgs, metadataDir, dbFile: typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite', compile: values['no-compile'] !== true });
    return undefined;
  }
  if (values['no-compile'] === true) throw new UsageError('ecn-odata serve: --no-compile goes with --watch.');
  const workers = workerCount(values['workers']);
  const port = intFlag('serve', 'port', values['port'], 8080);
  const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
  const seed = values['seed'];
  if (seed !== undefined && seed !== 'demo') throw new UsageError(`ecn-odata serve: --seed takes 'demo', got '${String(seed)}'.`);
  const logLevel = values['log-level'];
  if (logLevel !== undefined && !LOG_LEVELS.includes(String(logLevel))) throw new UsageError(`ecn-odata serve: --log-level takes one of ${LOG_LEVELS.join(', ')}, got '${String(logLevel)}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  const dbConnections = connectionCount(values['db-connections'], dbFile);
  const readReplicas = replicaUrls(values['read-replica'], dbFile);
  const opts = defaultOptions({
    dbFile,
    ...(dbConnections === undefined ? {} : { dbConnections }),
    ...(typeof values['metadata'] === 'string' ? { metadataDir: values['metadata'] } : {}),
    ...(typeof values['log-level'] === 'string' ? { logLevel: values['log-level'] } : {}),
    ...(typeof values['default-company'] === 'string' ? { defaultCompany: values['default-company'] } : seed === 'demo' ? { defaultCompany: DEMO_DEFAULT_COMPANY } : {}),
  });
  const webhooks = webhookOptions(values, host, port);
  const jwt = jwtOptions(values);
  const cors = corsOrigins(values);
  const worker = isServeWorker();
  if (workers !== undefined && !worker) {
    const where = parseSafely(dbFile);
    if (where?.kind === 'sqlite' && where.file === ':memory:') {
      throw new UsageError("ecn-odata serve: --workers needs a database the workers share (a file or a PostgreSQL URL); ':memory:' is private to each process.");
    }
  }
  let service: Service;
  let admin: DemoToken | undefined;
  try {
    const where = parseDatabaseLocation(dbFile);
    if (where.kind === 'sqlite' && where.file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(where.file)), { recursive: true });
    // The primary of --workers only prepares the database (it never delivers webhooks or serves).
    const primary = workers !== undefined && !worker;
    // Other processes may serve a file or server too (fair use adds up their users' requests); not ':memory:'.
    const shareFairUse = !primary && !(where.kind === 'sqlite' && where.file === ':memory:');
    // Nor does it read on the replicas: only the workers get them.
    const replicas = primary || readReplicas.length === 0 ? {} : { readReplicas };
    service = await createService({ ...opts, ...jwt, ...replicas, publicMetadata: values['protect-metadata'] !== true, webhooks: primary ? { ...webhooks, deliver: false } : webhooks, corsOrigins: cors, shareFairUse }, businessRules);
    if (seed === 'demo' && !worker) {
      await seedDemoIfEmpty(service.context);
      await seedDemoUsers(service.context.users);
      admin = await demoToken(service.context.tokens, dbFile);
    }
  } catch (e) {
    if (e instanceof DatabaseLocationError) throw new StartupError(`ecn-odata serve: --db ${e.message}`);
    if (isDatabaseFailure(e)) throw databaseFailure('serve', redactUrl(dbFile), e);
    throw e;
  }
  if (workers !== undefined && !worker) {
    await service.close();
    const port0 = await runWorkers(workers, argv.filter((arg, i) => arg !== '--workers' && argv[i - 1] !== '--workers' && !arg.startsWith('--workers=')), stopGraceMs(service) + WORKER_EXIT_MS);
    printBanner(host, port0, service.model.service.serviceRoot, dbFile, admin, workers);
    return undefined;
  }
  const graceful = new GracefulStop();
  const listener = graceful.track(createRequestListener(service));
  return await new Promise<Server>((resolve, reject) => {
    // The request listener on node's server, as express-app's listen does; the URL and token are printed
    // only from 'listening', never after a listen error (the callback of app.listen hears both).
    const server = applyServerTimeouts(http.createServer(listener));
    server.once('error', (e: NodeJS.ErrnoException) => {
      void service.close().finally(() => reject(listenFailure(host, port, e)));
    });
    server.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address !== null ? address.port : port;
      if (worker) void tellPrimary({ kind: 'listening', port: actualPort });
      else printBanner(host, actualPort, service.model.service.serviceRoot, dbFile, admin, undefined);
      resolve(server);
    });
    // The requests in progress are answered before the database closes (http/graceful-stop.ts); a
    // second signal finds no handler left and ends the process at once.
    const stop = (): void => {
      void graceful
        .stop(server, stopGraceMs(service))
        .then(() => service.close())
        .finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** How long a stopping server waits for its requests in progress: past their deadline, then they are cut off. */
function stopGraceMs(service: Service): number {
  return service.model.service.requestTimeoutMs + 1_000;
}

/** What a stopping worker may take beyond its grace period (closing the database) before the primary kills it. */
const WORKER_EXIT_MS = 2_000;

/** What `serve` prints once it listens (with --workers: once every worker listens). */
function printBanner(host: string, port: number, serviceRoot: string, dbFile: string, admin: DemoToken | undefined, workers: number | undefined): void {
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const root = `${origin}${serviceRoot}`;
  const processes = workers === undefined ? '' : `, ${workers} worker${workers === 1 ? '' : 's'}`;
  console.log(`ecn-odata serving ${root}/ (database ${redactUrl(dbFile)}${processes})`);
  console.log(`  index page:       ${origin}/`);
  console.log(`  API docs:         ${origin}${DOCS_PATH}`);
  console.log(`  service document: ${root}/`);
  console.log(`  metadata:         ${root}/$metadata`);
  if (admin !== undefined) {
    const until = admin.expiresAt === null ? '' : `, valid until ${admin.expiresAt.slice(0, 10)}`;
    console.log(`  token for ADMIN (SUPER in both demo companies${until}; ${admin.issued ? 'new' : 'the one issued before'}):`);
    console.log(`  ${admin.token}`);
  }
}

/** `--workers N`: undefined when not given; a UsageError outside 1..MAX_WORKERS. */
function workerCount(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < 1 || n > MAX_WORKERS) {
    throw new UsageError(`ecn-odata serve: --workers takes a whole number from 1 to ${MAX_WORKERS}, got '${String(value)}'.`);
  }
  return n;
}

/** The most pooled connections: `--db-connections N`, for a PostgreSQL `--db` only. */
function connectionCount(value: string | boolean | undefined, dbFile: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n < 2 || n > MAX_CONNECTIONS) {
    throw new UsageError(`ecn-odata serve: --db-connections takes a whole number from 2 to ${MAX_CONNECTIONS}, got '${String(value)}'.`);
  }
  // (A --db that names no database is reported by createService.)
  if (parseSafely(dbFile)?.kind === 'sqlite') {
    throw new UsageError('ecn-odata serve: --db-connections is for a PostgreSQL --db; on SQLite, reads run on their own threads (limits.readWorkers in service.json).');
  }
  return n;
}

/** The `--read-replica` URLs: PostgreSQL URLs, beside a PostgreSQL `--db` only. */
function replicaUrls(value: string | boolean | (string | boolean)[] | undefined, dbFile: string): string[] {
  const urls = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  if (urls.length === 0) return [];
  if (parseSafely(dbFile)?.kind !== 'postgres') {
    throw new UsageError('ecn-odata serve: --read-replica is for a PostgreSQL --db (a hot standby of it); SQLite has no replicas.');
  }
  for (const url of urls) {
    if (parseSafely(url)?.kind !== 'postgres') throw new UsageError(`ecn-odata serve: --read-replica takes a PostgreSQL URL (postgres://user:password@host:5432/database), got '${redactUrl(url)}'.`);
  }
  return urls;
}

/** The most connections one process may pool (PostgreSQL's own default max_connections is 100). */
const MAX_CONNECTIONS = 1000;

/** The database `--db` names, or undefined when it names none (createService reports that). */
function parseSafely(dbFile: string): ReturnType<typeof parseDatabaseLocation> | undefined {
  try {
    return parseDatabaseLocation(dbFile);
  } catch {
    return undefined;
  }
}

/** The one line for a port the service cannot listen on. */
function listenFailure(host: string, port: number, e: NodeJS.ErrnoException): StartupError {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (e.code === 'EADDRINUSE') return new StartupError(`ecn-odata serve: cannot listen on ${where}: the port is in use by another process; stop it or choose another --port.`);
  if (e.code === 'EACCES') return new StartupError(`ecn-odata serve: cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another --port.`);
  if (e.code === 'EADDRNOTAVAIL') return new StartupError(`ecn-odata serve: cannot listen on ${where}: no such address on this machine; check --host.`);
  return new StartupError(`ecn-odata serve: cannot listen on ${where}: ${e.message}.`);
}

/** JWT settings from the flags: all three of issuer, audience and JWKS URL, or none. */
function jwtOptions(values: Record<string, string | boolean | undefined>): Partial<ServiceOptions> {
  const issuer = values['jwt-issuer'];
  const audience = values['jwt-audience'];
  const jwksUrl = values['jwt-jwks-url'];
  const authorizationUri = values['jwt-authorization-uri'];
  if (issuer === undefined && audience === undefined && jwksUrl === undefined) {
    if (authorizationUri !== undefined) throw new UsageError('ecn-odata serve: --jwt-authorization-uri needs --jwt-issuer, --jwt-audience and --jwt-jwks-url.');
    return {};
  }
  if (typeof issuer !== 'string' || typeof audience !== 'string' || typeof jwksUrl !== 'string') {
    throw new UsageError('ecn-odata serve: JWT needs all of --jwt-issuer, --jwt-audience and --jwt-jwks-url.');
  }
  const skew = values['jwt-clock-skew'] === undefined ? 60 : Number(values['jwt-clock-skew']);
  if (!Number.isInteger(skew) || skew < 0 || skew > 3600) throw new UsageError('ecn-odata serve: --jwt-clock-skew takes whole seconds from 0 to 3600.');
  try {
    new URL(jwksUrl);
  } catch {
    throw new UsageError(`ecn-odata serve: --jwt-jwks-url '${jwksUrl}' is not a URL.`);
  }
  if (typeof authorizationUri === 'string' && !/^https?:$/.test(urlProtocol(authorizationUri))) {
    throw new UsageError(`ecn-odata serve: --jwt-authorization-uri '${authorizationUri}' is not an http or https URL.`);
  }
  const claim = typeof values['jwt-user-claim'] === 'string' ? values['jwt-user-claim'] : 'preferred_username';
  return {
    jwt: { issuer, audience, jwksUrl, userClaim: claim, clockToleranceSeconds: skew, jwksCooldownMs: 30_000, ...(typeof authorizationUri === 'string' ? { authorizationUri } : {}) },
  };
}

/** The protocol of a URL (`https:`), or '' when the text is not a URL. */
function urlProtocol(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}

/** The origins of `--cors-origin` (repeatable), each checked to be an origin as browsers send it. */
function corsOrigins(values: Record<string, unknown>): string[] {
  const given = values['cors-origin'];
  const origins = Array.isArray(given) ? given.map(String) : [];
  for (const origin of origins) {
    if (!isOrigin(origin)) throw new UsageError(`ecn-odata serve: --cors-origin '${origin}' is not an origin; write scheme, host and port only, e.g. https://app.example.com or http://localhost:3000.`);
  }
  return origins;
}

/** A whole number of milliseconds from a flag, or a UsageError. */
function millis(flag: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`ecn-odata serve: --${flag} takes whole milliseconds, got '${text}'.`);
  return Number(text.trim());
}

/** Webhook options from the flags over the defaults; the public URL defaults to the listening address. */
function webhookOptions(values: Record<string, string | boolean | undefined>, host: string, port: number): WebhookOptions {
  const publicUrl = values['public-url'];
  let publicBaseUrl = port === 0 ? DEFAULT_WEBHOOKS.publicBaseUrl : `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (typeof publicUrl === 'string') {
    let url: URL;
    try {
      url = new URL(publicUrl);
    } catch {
      throw new UsageError(`ecn-odata serve: --public-url '${publicUrl}' is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('ecn-odata serve: --public-url must be an http or https URL.');
    publicBaseUrl = publicUrl.replace(/\/+$/, '');
  }
  const timeout = values['webhooks-timeout'];
  const backoff = values['webhooks-backoff'];
  return {
    ...DEFAULT_WEBHOOKS,
    publicBaseUrl,
    allowPrivate: values['webhooks-allow-private'] === true,
    ...(typeof timeout === 'string' ? { timeoutMs: Math.max(1, millis('webhooks-timeout', timeout)) } : {}),
    ...(typeof backoff === 'string' ? { backoffMs: backoff.split(',').filter((part) => part.trim() !== '').map((part) => millis('webhooks-backoff', part)) } : {}),
  };
}
