/**
 * The data files of a model (like CAP's db/data): `<metadata>/data/<entitySet>.csv` or `.json`, loaded
 * by `ecn-odata seed` into an empty database. Each file is imported through the API's validation and
 * rules (import-rows.ts); files of global sets are loaded first (the companies among them), then the
 * others in reference order (a set before the sets whose rows refer to it), each file of a
 * company-scoped set into every company. The caller runs it in one transaction: a refused row names
 * its file and line and nothing is seeded.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EdmModel, EntityType } from '../edm/model.js';
import { chooseFrom } from '../edm/suggest-name.js';
import type { ServiceContext } from '../core/service-context.js';
import type { Principal } from '../auth/principal.js';
import { col, select } from '../sql/build.js';
import { compile } from '../sql/compile.js';
import { DataFileError, dataFormatOf, readDataFile } from './data-file.js';
import { ImportRefusedError, importRows, refusalText } from './import-rows.js';

/** One data file and the entity set it fills. */
export interface DataFile {
  readonly file: string;
  readonly type: EntityType;
}

/** What a data folder load wrote, per file and company. */
export interface DataFolderReport {
  readonly loaded: readonly { readonly file: string; readonly companyId: string | undefined; readonly rows: number }[];
}

/** The data folder of a model folder. */
export function dataFolderOf(metadataDir: string): string {
  return path.join(metadataDir, 'data');
}

/** Orders types so that a referential navigation's target comes before its source (cycles keep file order). */
function referenceOrder(model: EdmModel, files: readonly DataFile[]): DataFile[] {
  const ordered: DataFile[] = [];
  const visiting = new Set<EntityType>();
  const byType = new Map(files.map((f) => [f.type, f]));
  const visit = (file: DataFile): void => {
    if (ordered.includes(file) || visiting.has(file.type)) return;
    visiting.add(file.type);
    for (const navigation of file.type.navigations) {
      const target = byType.get(navigation.target);
      if (navigation.referential && target !== undefined) visit(target);
    }
    ordered.push(file);
  };
  const rank = (f: DataFile): number => (f.type === model.company ? 0 : f.type.scope === 'global' ? 1 : 2);
  for (const file of [...files].sort((a, b) => rank(a) - rank(b) || a.type.entitySet.localeCompare(b.type.entitySet))) visit(file);
  return ordered.sort((a, b) => rank(a) - rank(b) || ordered.indexOf(a) - ordered.indexOf(b));
}

/** The data files of `dir` in load order; a file that names no entity set is a DataFileError with a suggestion. */
export function listDataFiles(model: EdmModel, dir: string): DataFile[] {
  if (!fs.existsSync(dir)) return [];
  const files: DataFile[] = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    if (!fs.statSync(file).isFile()) continue;
    if (dataFormatOf(name) === undefined) throw new DataFileError(file, 1, 'a data file is named <entitySet>.csv or <entitySet>.json.');
    const set = path.basename(name, path.extname(name));
    const type = model.entityTypeBySet.get(set);
    if (type === undefined) throw new DataFileError(file, 1, `there is no entity set '${set}'; ${chooseFrom(set, [...model.entityTypeBySet.keys()], 'an entity set')}.`);
    if (files.some((f) => f.type === type)) throw new DataFileError(file, 1, `${set} has two data files; keep one (.csv or .json).`);
    files.push({ file, type });
  }
  return referenceOrder(model, files);
}

async function companyIds(svc: ServiceContext): Promise<string[]> {
  const company = svc.model.company;
  const query = select({ columns: [{ expr: col('c', company.key.name), alias: 'id' }], from: { kind: 'table', table: company.table, alias: 'c' }, orderBy: [{ expr: col('c', 'name'), direction: 'ASC' }] });
  return (await svc.engine.db.all(compile(query, svc.engine.dialect))).map((row) => String(row['id']));
}

/** Loads every data file (atomic: the first refused row throws DataFileError naming file and line). */
export async function loadDataFolder(svc: ServiceContext, dir: string, principal: Principal): Promise<DataFolderReport> {
  const loaded: { file: string; companyId: string | undefined; rows: number }[] = [];
  for (const { file, type } of listDataFiles(svc.model, dir)) {
    const companies = type.scope === 'company' ? await companyIds(svc) : [undefined];
    if (companies.length === 0) throw new DataFileError(file, 1, `${type.entitySet} is company-scoped and there is no company yet; add ${svc.model.company.entitySet}.csv to the data folder (or seed the demo).`);
    for (const companyId of companies) {
      try {
        const report = await importRows(svc, type, readDataFile(file, type), { mode: 'atomic', principal, companyId });
        loaded.push({ file, companyId, rows: report.imported });
      } catch (e) {
        if (e instanceof ImportRefusedError) throw new DataFileError(file, e.row.line, refusalText(e.row));
        throw e;
      }
    }
  }
  return { loaded };
}
