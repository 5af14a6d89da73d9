/**
 * src/cli/seed.ts, import.ts, export.ts as an operator runs them (the compiled bin): seed loads the
 * data folder after the demo in one transaction (a refused row names file and line, nothing seeded);
 * import reports refused rows as FILE:LINE and exits 1; export writes CSV and JSON that import reads.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BIN } from '../../helpers/serve-process.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-data-cli-'));
afterAll(() => fs.rmSync(workDir, { recursive: true, force: true }));

let copies = 0;
/** A copy of the fixture model with the given data files; returns its metadata folder. */
function modelWithData(files: Record<string, string>): string {
  const dir = path.join(workDir, `m${++copies}`, 'metadata');
  fs.cpSync(FIXTURE_METADATA, dir, { recursive: true });
  fs.mkdirSync(path.join(dir, 'data'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, 'data', name), text);
  return dir;
}

const run = (...args: string[]): SpawnSyncReturns<string> => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', cwd: workDir, timeout: 30_000 });

function query<T>(db: string, sql: string, ...params: unknown[]): T[] {
  const conn = new BetterSqlite3(db, { readonly: true });
  try {
    return conn.prepare(sql).all(...params) as T[];
  } finally {
    conn.close();
  }
}

test('seed: the demo, then the data files, a company-scoped file into every company', () => {
  const metadata = modelWithData({ 'changeReasons.csv': 'code,description\nREG,Regulation\nCUST,"Customer request, urgent"\n', 'workCenterGroups.json': '[{"code": "WC-PAINT", "name": "Paint shop"}]' });
  const db = path.join(workDir, 'seeded.sqlite');
  const r = run('seed', '--db', db, '--metadata', metadata);
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  expect(r.stdout).toContain('4 rows from data/changeReasons.csv; 2 rows from data/workCenterGroups.json');
  const rows = query<{ company: string; code: string; description: string }>(db, 'SELECT c."name" AS company, r."code", r."description" FROM "changeReasons" r JOIN "companies" c ON c."id" = r."_companyId" WHERE r."code" IN (\'REG\', \'CUST\') ORDER BY 1, 2');
  expect(rows).toEqual([
    { company: 'CRONUS', code: 'CUST', description: 'Customer request, urgent' },
    { company: 'CRONUS', code: 'REG', description: 'Regulation' },
    { company: 'FABRIKAM', code: 'CUST', description: 'Customer request, urgent' },
    { company: 'FABRIKAM', code: 'REG', description: 'Regulation' },
  ]);
  expect(run('seed', '--db', db, '--metadata', metadata).stdout).toContain('already holds data; nothing seeded');
});

test('seed --dataset none: companies from the data folder first, then the sets that need them', () => {
  const metadata = modelWithData({ 'companies.csv': 'name,displayName\nACME,Acme Corp.\n', 'changeReasons.csv': 'code,description\nREG,Regulation\n' });
  const db = path.join(workDir, 'files-only.sqlite');
  const r = run('seed', '--db', db, '--metadata', metadata, '--dataset', 'none');
  expect(r.status).toBe(0);
  expect(query<{ name: string; code: string }>(db, 'SELECT c."name", r."code" FROM "changeReasons" r JOIN "companies" c ON c."id" = r."_companyId"')).toEqual([{ name: 'ACME', code: 'REG' }]);
});

test('seed: a refused row names file and line, exit 1, and nothing is seeded (not even the demo)', () => {
  const metadata = modelWithData({ 'changeReasons.csv': 'code,description\nREG,Regulation\nCOST,Taken by the demo\n' });
  const db = path.join(workDir, 'refused.sqlite');
  const r = run('seed', '--db', db, '--metadata', metadata);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(`${path.join(metadata, 'data', 'changeReasons.csv')}:3: Internal_EntityWithSameKeyExists: The changeReason already exists. Identification fields and values: code='COST'.`);
  expect(r.stderr).toContain('Nothing seeded.');
  expect(query(db, 'SELECT * FROM "companies"')).toEqual([]);
  expect(run('seed', '--db', db, '--metadata', modelWithData({})).status).toBe(0);
});

test('seed: a data file that names no entity set gets a suggestion', () => {
  const r = run('seed', '--db', path.join(workDir, 'typo.sqlite'), '--metadata', modelWithData({ 'changeReason.csv': 'code\nX\n' }));
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(/changeReason\.csv:1: there is no entity set 'changeReason'; use "changeReasons" \(did you mean it\?\)/);
});

describe('import and export', () => {
  const db = path.join(workDir, 'io.sqlite');
  beforeAll(() => {
    expect(run('seed', '--db', db, '--metadata', FIXTURE_METADATA).status).toBe(0);
  });
  const io = (...args: string[]) => run(...args, '--db', db, '--metadata', FIXTURE_METADATA);

  test('import: refused rows as FILE:LINE: code: message (field), the others imported, exit 1', () => {
    const file = path.join(workDir, 'reasons.csv');
    fs.writeFileSync(file, 'code,description\nNEW1,First\nTOO-LONG-CODE-X,Too long\nNEW2,Second\n');
    const r = io('import', '--set', 'changeReasons', '--company', 'CRONUS', '--file', file);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: Application_FieldValidationException: .*\\(field code\\)$`))]);
    expect(r.stdout).toMatch(/^Imported 2 rows into changeReasons; refused 1 \(listed above\) in [\d.]+ s\.\n$/);
  });

  test('import of a JSON file on one line (as JSON.stringify writes it): refused rows named by line and element', () => {
    const file = path.join(workDir, 'reasons.json');
    fs.writeFileSync(file, JSON.stringify([{ code: 'J1', description: 'ok' }, { code: 'TOO-LONG-CODE-X' }, { code: 'J2' }, { code: 'J1' }]));
    const r = io('import', '--set', 'changeReasons', '--company', 'CRONUS', '--file', file);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/reasons\.json:1: element 2: Application_FieldValidationException: .*\(field code\)$/),
      expect.stringMatching(/reasons\.json:1: element 4: Internal_EntityWithSameKeyExists: /),
    ]);
    expect(r.stdout).toMatch(/^Imported 2 rows into changeReasons; refused 2 /);
  });

  test('import --atomic: nothing imported when a row is refused', () => {
    const file = path.join(workDir, 'atomic.csv');
    fs.writeFileSync(file, 'code,description\nATOM1,First\nATOM1,Again\n');
    const r = io('import', '--set', 'changeReasons', '--company', 'CRONUS', '--file', file, '--atomic');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}:3: Internal_EntityWithSameKeyExists`);
    expect(query(db, 'SELECT * FROM "changeReasons" WHERE "code" = \'ATOM1\'')).toEqual([]);
  });

  test('import usage: a company-scoped set needs --company; an unknown set gets a suggestion (exit 2)', () => {
    const file = path.join(workDir, 'reasons.csv');
    expect(io('import', '--set', 'changeReasons', '--file', file)).toMatchObject({ status: 2, stderr: expect.stringContaining('changeReasons is company-scoped; name the company with --company') });
    expect(io('import', '--set', 'changeReason', '--company', 'CRONUS', '--file', file)).toMatchObject({ status: 2, stderr: expect.stringContaining('use "changeReasons" (did you mean it?)') });
  });

  test('export: CSV and JSON of one company, in key order; --importable drops read-only columns; import reads it back', () => {
    const csv = io('export', '--set', 'workCenterGroups', '--format', 'csv', '--company', 'CRONUS');
    expect(csv.status).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('id,code,name,email,lastModifiedDateTime');
    expect(lines).toHaveLength(4);
    const json = JSON.parse(io('export', '--set', 'workCenterGroups', '--format', 'json', '--company', 'CRONUS').stdout) as { id: string; code: string }[];
    expect(json.map((g) => g.id)).toEqual([...json.map((g) => g.id)].sort());
    expect(json.map((g) => g.code).sort()).toEqual(['WC-ASM', 'WC-MACH', 'WC-QA']);
    const out = path.join(workDir, 'groups.csv');
    expect(io('export', '--set', 'workCenterGroups', '--format', 'csv', '--company', 'CRONUS', '--importable', '--out', out).status).toBe(0);
    expect(fs.readFileSync(out, 'utf8').split('\n')[0]).toBe('code,name,email');
    // The same rows into the other company: the demo gave FABRIKAM the same codes, so each row is
    // refused as a duplicate code, by line.
    const r = io('import', '--set', 'workCenterGroups', '--company', 'FABRIKAM', '--file', out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${out}:2: Internal_EntityWithSameKeyExists: The workCenterGroup already exists. Identification fields and values: code='WC-ASM'.`);
  });
});

test.each([['export', '--set', 'engChangeNotices', '--format', 'csv'], ['seed'], ['check']])('%s on a PostgreSQL URL it cannot reach: one line that hides the password, exit 1', (...command) => {
  // Port 1 on the loopback address: nothing listens there.
  const r = run(...command, '--db', 'postgres://ecn:s3cret-pw@127.0.0.1:1/ecn');
  expect(r.status).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/cannot use the database postgres:\/\/ecn:\*\*\*@127\.0\.0\.1:1\/ecn: .*ECONNREFUSED/);
  expect(r.stderr).not.toContain('s3cret');
});
