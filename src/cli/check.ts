/**
 * `ecn-odata check`: validates what `serve` would start with, without serving: the model files, the
 * rule modules against the model (the hook registry), and with `--db` the migration the database
 * would get, run in a transaction that is rolled back. `serve --watch` runs it before every restart.
 */
import fs from 'node:fs';
import { defaultOptions } from '../config.js';
import { loadModel } from '../edm/load-model.js';
import { buildHookRegistry } from '../hooks/registry.js';
import { eventFrameworkHooks } from '../events/subscription-checks.js';
import { changeSubscriptionHooks } from '../events/change-subscription-checks.js';
import { NO_ROW_READER } from '../events/current-row.js';
import { businessRules } from '../rules/index.js';
import pino from 'pino';
import { openEngine } from '../db/open-engine.js';
import { parseDatabaseLocation, redactUrl } from '../db/database-location.js';
import { parseFlags } from './args.js';
import { databaseFailure, isDatabaseFailure } from './startup-error.js';

/** Help text of `check`. */
export const CHECK_HELP = `Usage: ecn-odata check [options]

Checks the model files, the rule modules (src/rules, as compiled in dist/) and, with --db, that the
database can be migrated to the model (the migration is rolled back). Prints the problems and exits 1
when something would stop serve.

Options:
  --metadata DIR     model folder (default: the packaged metadata/)
  --db DB            SQLite database file or postgres:// URL to try the migration on (left unchanged)
  -h, --help         show this help`;

/** Runs `check`; returns the exit code (a bad model or rule module throws, and main prints it). */
export async function check(argv: string[]): Promise<number> {
  const { values, help } = parseFlags('check', argv, { metadata: { type: 'string' }, db: { type: 'string' } });
  if (help) {
    console.log(CHECK_HELP);
    return 0;
  }
  const metadataDir = typeof values['metadata'] === 'string' ? values['metadata'] : defaultOptions().metadataDir;
  const model = loadModel(metadataDir);
  buildHookRegistry(model, businessRules, [...eventFrameworkHooks(model, NO_ROW_READER), ...changeSubscriptionHooks(model, NO_ROW_READER)]);
  const dbFile = values['db'];
  const where = typeof dbFile === 'string' ? parseDatabaseLocation(dbFile) : undefined;
  // A SQLite file that does not exist yet would be created empty, which tells nothing.
  if (typeof dbFile === 'string' && (where?.kind === 'postgres' || fs.existsSync(dbFile))) {
    try {
      const engine = await openEngine(dbFile, { ...model.service, readWorkers: 0 }, pino({ level: 'warn', base: undefined }));
      try {
        await engine.migrate(model, { dryRun: true });
      } finally {
        await engine.close();
      }
    } catch (e) {
      if (isDatabaseFailure(e)) throw databaseFailure('check', redactUrl(dbFile), e);
      throw e;
    }
  }
  console.log(`ok: ${model.entityTypes.length} entity types, ${businessRules.length} rule modules${typeof dbFile === 'string' ? `, database ${redactUrl(dbFile)} migrates` : ''}.`);
  return 0;
}
