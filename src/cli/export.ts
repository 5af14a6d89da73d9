/**
 * `ecn-odata export --set S --format csv|json`: writes the rows of an entity set (of one company, for
 * a company-scoped set) to a file or stdout (src/data/export-rows.ts).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { exportRows } from '../data/export-rows.js';
import { parseFlags, UsageError } from './args.js';
import { openDataService, setAndCompany } from './data-service.js';

/** Help text of `export`. */
export const EXPORT_HELP = `Usage: ecn-odata export --set SET --format csv|json [options]

Writes the rows of an entity set in key order: CSV with a header row, or a JSON array of objects as a
GET returns them. Every stored property is written; --importable leaves out the read-only ones, so
that the file can be edited and imported again.

Options:
  --set SET          the entity set, e.g. changeReasons
  --format F         csv or json
  --company C        the company (id or name) of a company-scoped set
  --importable       only the columns import accepts
  --out FILE         the file to write (default: stdout)
  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

/** Runs `export`; returns the exit code. */
export async function runExport(argv: string[]): Promise<number> {
  const { values, help } = parseFlags('export', argv, {
    set: { type: 'string' },
    format: { type: 'string' },
    company: { type: 'string' },
    importable: { type: 'boolean' },
    out: { type: 'string' },
    db: { type: 'string' },
    metadata: { type: 'string' },
  });
  if (help) {
    console.log(EXPORT_HELP);
    return 0;
  }
  const set = values['set'];
  const format = values['format'];
  if (typeof set !== 'string') throw new UsageError("ecn-odata export: name the entity set: --set SET. Try 'ecn-odata export --help'.");
  if (format !== 'csv' && format !== 'json') throw new UsageError(`ecn-odata export: --format takes csv or json, got '${String(format)}'.`);
  const dbFile = typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite';
  const service = await openDataService('export', dbFile, typeof values['metadata'] === 'string' ? values['metadata'] : undefined);
  try {
    const { type, companyId } = await setAndCompany('export', service, set, values['company']);
    const outFile = values['out'];
    const out: Writable = typeof outFile === 'string' ? fs.createWriteStream(outFile) : process.stdout;
    // A reader that stops early (`| head`) closes the pipe: stop writing quietly, as other tools do.
    if (out === process.stdout) process.stdout.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' ? process.exit(0) : undefined));
    const count = await exportRows(service.engine, type, out, { format, companyId, importable: values['importable'] === true });
    if (typeof outFile === 'string') {
      out.end();
      await once(out, 'finish');
      console.error(`Exported ${count} rows of ${set} to ${outFile}.`);
    }
    return 0;
  } finally {
    await service.close();
  }
}
