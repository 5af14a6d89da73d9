/**
 * What the import-rows tests share: CSV files of ECN rows in a temporary folder (removed after the
 * file's tests), the ECN columns they use, and the principal that imports them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The ECN columns of the tests' CSV files. */
export const HEADER = 'status,changeReasonCode,drawingNumber,sourceType,sourceStatus,sourceSequence';

/** The user the rows are imported as. */
export const principal = { userId: 'IMPORTER', companies: new Set<string>(), grants: new Map() };

/** A folder of its own for the calling test file (removed after its tests), and a writer of CSV files into it. */
export function dataFiles(prefix: string): { readonly dir: string; readonly csv: (name: string, lines: readonly string[]) => string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const csv = (name: string, lines: readonly string[]): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  return { dir, csv };
}
