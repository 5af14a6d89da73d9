#!/usr/bin/env -S node --max-semi-space-size=8 --max-old-space-size=256
/**
 * The `ecn-odata` command. Usage errors print one line and exit 2; a bad model or database prints its
 * problems and exits 1, and so does `serve` when it cannot start (StartupError, bad options included);
 * nothing prints a stack trace.
 */
import { ModelError } from '../edm/load-model.js';
import { MigrationError } from '../db/migration.js';
import { UsageError } from './args.js';
import { serve } from './serve.js';
import { seed } from './seed.js';
import { runAdmin } from './admin.js';
import { deliveries } from './deliveries.js';
import { subscriptions } from './subscriptions.js';
import { types } from './types.js';
import { check } from './check.js';
import { runImport } from './import.js';
import { runExport } from './export.js';
import { UserStoreError } from '../auth/user-store.js';
import { StartupError } from './startup-error.js';
import { DatabaseLocationError } from '../db/database-location.js';

const HELP = `Usage: ecn-odata <command> [options]

Commands:
  serve      start the OData service (ecn-odata serve --help)
  seed       write the demo data and the model's data files into a database (ecn-odata seed --help)
  import     load a CSV or JSON file into an entity set through validation and rules (ecn-odata import --help)
  export     write an entity set as CSV or JSON (ecn-odata export --help)
  users      add or list users (ecn-odata users --help)
  grant      grant permission sets in a company (ecn-odata grant --help)
  revoke     remove grants (ecn-odata revoke --help)
  token      issue or revoke API tokens (ecn-odata token --help)
  companies  add or list companies (ecn-odata companies --help)
  deliveries list webhook notifications and their attempts (ecn-odata deliveries --help)
  subscriptions  list or delete webhook subscriptions of both kinds (ecn-odata subscriptions --help)
  types      generate TypeScript row types for rule modules from the model (ecn-odata types --help)
  check      check the model, the rule modules and the database migration without serving (ecn-odata check --help)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(rest);
      return -1;
    case 'seed':
      return seed(rest);
    case 'import':
      return runImport(rest);
    case 'export':
      return runExport(rest);
    case 'deliveries':
      return deliveries(rest);
    case 'subscriptions':
      return subscriptions(rest);
    case 'types':
      return types(rest);
    case 'check':
      return check(rest);
    case 'users':
    case 'grant':
    case 'revoke':
    case 'token':
    case 'companies':
      return runAdmin(command, rest);
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      console.log(HELP);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`ecn-odata: unknown command '${command}'. Commands: serve, seed, import, export, check, types, users, grant, revoke, token, companies, deliveries, subscriptions.`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof StartupError) {
      console.error(e.message);
      process.exit(1);
    }
    if (e instanceof DatabaseLocationError) {
      console.error(`ecn-odata: --db ${e.message}`);
      process.exit(2);
    }
    if (e instanceof UsageError || e instanceof UserStoreError) {
      console.error(e.message);
      process.exit(2);
    }
    if (e instanceof ModelError || e instanceof MigrationError) {
      console.error(`ecn-odata: cannot start: ${e.message}`);
      process.exit(1);
    }
    console.error(`ecn-odata: ${(e as Error).message ?? String(e)}`);
    process.exit(1);
  },
);
