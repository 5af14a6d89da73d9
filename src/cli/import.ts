/**
 * `ecn-odata import --set S --file F.csv|F.json`: loads records into an entity set through the API's
 * validation and rules (src/data/import-rows.ts). A refused row is printed as `file:line: code: message`
 * and skipped, the rest is imported in batches (exit code 1 when any row was refused); with `--atomic`
 * the first refused row rolls back the whole import.
 */
import fs from 'node:fs';
import { DataFileError, readDataFile } from '../data/data-file.js';
import { ImportRefusedError, importRows, inOuterTransaction, refusalText, type ImportReport } from '../data/import-rows.js';
import { parseFlags, UsageError } from './args.js';
import { openDataService, operator, setAndCompany } from './data-service.js';

/** Help text of `import`. */
export const IMPORT_HELP = `Usage: ecn-odata import --set SET --file FILE [options]

Imports the records of a CSV file (a header row of property names) or a JSON file (an array of
objects as in a POST body) into an entity set, through the same validation and business rules as
POST. A refused row is reported as FILE:LINE (FILE:LINE: element N in a JSON file) and skipped; the others are imported, 2,000 rows per
transaction. Exit code 1 when any row was refused. Rows are written without their stored ETag texts
(and so, on SQLite, without their kept entity JSON): reads compute both until the service's next
start-up stores them.

Options:
  --set SET          the entity set, e.g. engChangeNotices
  --file FILE        the data file (.csv or .json)
  --company C        the company (id or name) of a company-scoped set
  --atomic           all or nothing: the first refused row rolls back the whole import
  --user ID          the user the rows are written as (currentUser defaults; default IMPORT)
  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

/** Runs `import`; returns the exit code. */
export async function runImport(argv: string[]): Promise<number> {
  const { values, help } = parseFlags('import', argv, {
    set: { type: 'string' },
    file: { type: 'string' },
    company: { type: 'string' },
    atomic: { type: 'boolean' },
    user: { type: 'string' },
    db: { type: 'string' },
    metadata: { type: 'string' },
  });
  if (help) {
    console.log(IMPORT_HELP);
    return 0;
  }
  const set = values['set'];
  const file = values['file'];
  if (typeof set !== 'string' || typeof file !== 'string') throw new UsageError("ecn-odata import: name the entity set and the file: --set SET --file FILE. Try 'ecn-odata import --help'.");
  if (!fs.existsSync(file)) throw new UsageError(`ecn-odata import: there is no file '${file}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  const service = await openDataService('import', dbFile, typeof values['metadata'] === 'string' ? values['metadata'] : undefined);
  try {
    const { type, companyId } = await setAndCompany('import', service, set, values['company']);
    const principal = operator(typeof values['user'] === 'string' ? values['user'].toUpperCase() : 'IMPORT');
    const atomic = values['atomic'] === true;
    const started = process.hrtime.bigint();
    let report: ImportReport;
    try {
      const run = (): Promise<ImportReport> => importRows(service.context, type, readDataFile(file, type), { mode: atomic ? 'atomic' : 'skip', principal, companyId, bulk: true });
      report = atomic ? await inOuterTransaction(service.context, run) : await run();
    } catch (e) {
      if (e instanceof ImportRefusedError) {
        console.error(`${file}:${e.row.line}: ${refusalText(e.row)}`);
        console.error(`Nothing imported (--atomic).`);
        return 1;
      }
      if (e instanceof DataFileError) {
        console.error(e.message);
        return 1;
      }
      throw e;
    }
    for (const row of report.refused) console.error(`${file}:${row.line}: ${refusalText(row)}`);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    console.log(`Imported ${report.imported} rows into ${set}${report.refused.length > 0 ? `; refused ${report.refused.length} (listed above)` : ''} in ${seconds.toFixed(1)} s.`);
    return report.refused.length > 0 ? 1 : 0;
  } finally {
    await service.close();
  }
}
