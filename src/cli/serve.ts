/**
 * `ecn-odata serve`: starts the HTTP service (optionally seeding the demo data into an empty database)
 * and prints the service root URL.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import { defaultOptions } from '../config.js';
import { createService } from '../service.js';
import { createExpressApp } from '../http/express-app.js';
import { businessRules } from '../rules/index.js';
import { DEMO_DEFAULT_COMPANY, seedDemoIfEmpty } from '../seed/demo.js';
import { intFlag, parseFlags, UsageError } from './args.js';

/** Help text of `serve`. */
export const SERVE_HELP = `Usage: ecn-odata serve [options]

Starts the OData service.

Options:
  --port N              TCP port (default 8080)
  --host H              address to listen on (default 127.0.0.1)
  --db FILE             SQLite database file (default data/ecn.sqlite; created if missing)
  --seed demo           seed the demo data when the database is empty
  --metadata DIR        model folder (default: the packaged metadata/)
  --default-company C   company (id or name) for unscoped URLs without ?company=
  --log-level L         pino level: fatal, error, warn, info, debug, silent (default info)
  -h, --help            show this help`;

/** Runs `serve`; resolves once listening. */
export async function serve(argv: string[]): Promise<Server | undefined> {
  const { values, help } = parseFlags('serve', argv, {
    port: { type: 'string' },
    host: { type: 'string' },
    db: { type: 'string' },
    seed: { type: 'string' },
    metadata: { type: 'string' },
    'default-company': { type: 'string' },
    'log-level': { type: 'string' },
  });
  if (help) {
    console.log(SERVE_HELP);
    return undefined;
  }
  const port = intFlag('serve', 'port', values['port'], 8080);
  const host = typeof values['host'] === 'string' ? values['host'] : '127.0.0.1';
  const seed = values['seed'];
  if (seed !== undefined && seed !== 'demo') throw new UsageError(`ecn-odata serve: --seed takes 'demo', got '${String(seed)}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  if (dbFile !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(dbFile)), { recursive: true });
  const opts = defaultOptions({
    dbFile,
    ...(typeof values['metadata'] === 'string' ? { metadataDir: values['metadata'] } : {}),
    ...(typeof values['log-level'] === 'string' ? { logLevel: values['log-level'] } : {}),
    ...(typeof values['default-company'] === 'string' ? { defaultCompany: values['default-company'] } : seed === 'demo' ? { defaultCompany: DEMO_DEFAULT_COMPANY } : {}),
  });
  const service = createService(opts, businessRules);
  if (seed === 'demo') seedDemoIfEmpty(service.context);
  const app = createExpressApp(service);
  return await new Promise<Server>((resolve, reject) => {
    const server = app.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address !== null ? address.port : port;
      const root = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}${service.model.service.serviceRoot}`;
      console.log(`ecn-odata serving ${root}/ (database ${dbFile})`);
      console.log(`  service document: ${root}/`);
      console.log(`  metadata:         ${root}/$metadata`);
      resolve(server);
    });
    server.on('error', (e) => reject(new UsageError(`ecn-odata serve: cannot listen on ${host}:${port}: ${e.message}`)));
    const stop = (): void => {
      server.close();
      service.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
