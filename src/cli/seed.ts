/**
 * `ecn-odata seed`: writes the demo data set and the model's data files (`<metadata>/data/<entitySet>.csv`
 * or `.json`, like CAP's db/data) into a database that holds no company yet, in one transaction: a
 * refused row names its file and line, and nothing is seeded.
 */
import path from 'node:path';
import { defaultOptions } from '../config.js';
import { seedDemoIfEmpty, seedDemoUsers, type SeedResult } from '../seed/demo.js';
import { DataFileError } from '../data/data-file.js';
import { dataFolderOf, loadDataFolder, type DataFolderReport } from '../data/data-folder.js';
import { inOuterTransaction } from '../data/import-rows.js';
import { constant, select } from '../sql/build.js';
import { compile } from '../sql/compile.js';
import { parseFlags, UsageError } from './args.js';
import { openDataService, operator } from './data-service.js';

/** Help text of `seed`. */
export const SEED_HELP = `Usage: ecn-odata seed [options]

Seeds a database that holds no company yet, in one transaction:
  1. the deterministic demo data (two companies with ECNs, comments, BOM lines, ECOs, tasks and
     predecessors, user setups, contacts, work center groups, change reasons), unless --dataset none;
  2. the model's data files, <metadata>/data/<entitySet>.csv or .json, through the same validation and
     business rules as POST (a company-scoped set's file goes into every company).
A refused row is reported as FILE:LINE and nothing is seeded (exit code 1).
Does nothing when the database already holds a company.

Options:
  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)
  --dataset D        demo (default) or none (only the data files)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

/** Runs `seed`; returns the exit code. */
export async function seed(argv: string[]): Promise<number> {
  const { values, help } = parseFlags('seed', argv, { db: { type: 'string' }, dataset: { type: 'string' }, metadata: { type: 'string' } });
  if (help) {
    console.log(SEED_HELP);
    return 0;
  }
  const dataset = values['dataset'] ?? 'demo';
  if (dataset !== 'demo' && dataset !== 'none') throw new UsageError(`ecn-odata seed: --dataset takes 'demo' or 'none', got '${String(dataset)}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  const metadataDir = typeof values['metadata'] === 'string' ? values['metadata'] : defaultOptions().metadataDir;
  const service = await openDataService('seed', dbFile, metadataDir);
  try {
    const { model, engine } = service.context;
    const any = select({ columns: [{ expr: constant(1), alias: 'one' }], from: { kind: 'table', table: model.company.table, alias: 'c' }, limit: constant(1) });
    if ((await engine.db.get(compile(any, engine.dialect))) !== undefined) {
      console.log(`${dbFile} already holds data; nothing seeded.`);
      return 0;
    }
    let demo: SeedResult | undefined;
    let files: DataFolderReport;
    try {
      files = await inOuterTransaction(service.context, async () => {
        if (dataset === 'demo') {
          demo = await seedDemoIfEmpty(service.context);
          if (demo !== undefined) await seedDemoUsers(service.context.users);
        }
        return loadDataFolder(service.context, dataFolderOf(metadataDir), operator('SEED'));
      });
    } catch (e) {
      if (e instanceof DataFileError) {
        console.error(`${e.message}\nNothing seeded.`);
        return 1;
      }
      throw e;
    }
    const parts = demo === undefined ? [] : [demo.summary];
    const bySet = new Map<string, number>();
    for (const load of files.loaded) bySet.set(path.basename(load.file), (bySet.get(path.basename(load.file)) ?? 0) + load.rows);
    for (const [file, rows] of bySet) parts.push(`${rows} rows from data/${file}`);
    console.log(parts.length === 0 ? `Nothing to seed into ${dbFile} (--dataset none and no data files in ${dataFolderOf(metadataDir)}).` : `Seeded ${dbFile}: ${parts.join('; ')}`);
    return 0;
  } finally {
    await service.close();
  }
}

