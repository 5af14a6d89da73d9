/**
 * `ecn-odata seed`: writes the demo data set into a database (only when it holds no company yet).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultOptions } from '../config.js';
import { createService } from '../service.js';
import { seedDemoIfEmpty, seedDemoUsers } from '../seed/demo.js';
import { parseFlags, UsageError } from './args.js';

/** Help text of `seed`. */
export const SEED_HELP = `Usage: ecn-odata seed [options]

Seeds a database with the deterministic demo data (two companies with ECNs, comments, BOM lines,
ECOs, tasks and predecessors, user setups, contacts, work center groups, change reasons).
Does nothing when the database already holds a company.

Options:
  --db FILE          SQLite database file (default data/ecn.sqlite)
  --dataset demo     the data set to write (only 'demo' exists)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

/** Runs `seed`. */
export function seed(argv: string[]): void {
  const { values, help } = parseFlags('seed', argv, { db: { type: 'string' }, dataset: { type: 'string' }, metadata: { type: 'string' } });
  if (help) {
    console.log(SEED_HELP);
    return;
  }
  const dataset = values['dataset'] ?? 'demo';
  if (dataset !== 'demo') throw new UsageError(`ecn-odata seed: --dataset takes 'demo', got '${String(dataset)}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  fs.mkdirSync(path.dirname(path.resolve(dbFile)), { recursive: true });
  const service = createService(defaultOptions({ dbFile, logLevel: 'warn', ...(typeof values['metadata'] === 'string' ? { metadataDir: values['metadata'] } : {}) }));
  try {
    const result = seedDemoIfEmpty(service.context);
    if (result !== undefined) seedDemoUsers(service.context.users);
    console.log(result === undefined ? `${dbFile} already holds data; nothing seeded.` : `Seeded ${dbFile}: ${result.summary}`);
  } finally {
    service.close();
  }
}
