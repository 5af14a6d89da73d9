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
import { businessRules } from '../rules/index.js';
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { parseFlags } from './args.js';
import { databaseFailure, isDatabaseFailure } from './startup-error.js';

/** Help text of `check`. */
export const CHECK_HELP = `Usage: ecn-odata check [options]

Checks the model files, the rule modules (src/rules, as compiled in dist/) and, with --db, that the
database can be migrated to the model (the migration is rolled back). Prints the problems and exits 1
when something would stop serve.

Options:
  --metadata DIR     model folder (default: the packaged metadata/)
  --db FILE          SQLite database to try the migration on (left unchanged)
  -h, --help         show this help`;

/** Runs `check`; returns the exit code (a bad model or rule module throws, and main prints it). */
export function check(argv: string[]): number {
  const { values, help } = parseFlags('check', argv, { metadata: { type: 'string' }, db: { type: 'string' } });
  if (help) {
    console.log(CHECK_HELP);
    return 0;
  }
  const metadataDir = typeof values['metadata'] === 'string' ? values['metadata'] : defaultOptions().metadataDir;
  const model = loadModel(metadataDir);
  buildHookRegistry(model, businessRules, eventFrameworkHooks(model));
  const dbFile = values['db'];
  if (typeof dbFile === 'string' && fs.existsSync(dbFile)) {
    try {
      const db = openDatabase(dbFile);
      try {
        db.raw.exec('BEGIN IMMEDIATE');
        try {
          migrate(db, model);
        } finally {
          db.raw.exec('ROLLBACK');
        }
      } finally {
        db.close();
      }
    } catch (e) {
      if (isDatabaseFailure(e)) throw databaseFailure('check', dbFile, e);
      throw e;
    }
  }
  console.log(`ok: ${model.entityTypes.length} entity types, ${businessRules.length} rule modules${typeof dbFile === 'string' ? `, database ${dbFile} migrates` : ''}.`);
  return 0;
}
