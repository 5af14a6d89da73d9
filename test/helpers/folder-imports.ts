/**
 * The value imports between the folders of src/ (an `import type`, or an import whose every name is a
 * type, is erased by the compiler and ties nothing at run time), and the layering they must follow:
 * a folder imports only folders of lower layers. The top-level files of src/ (service.ts, config.ts)
 * count as the folder '(root)'. Read with TypeScript's own parser, which the build already has.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * src/'s folders from the top (the edges) to the bottom (values and helpers). A folder may import any
 * folder of a lower layer, none of its own layer or above. The README's "Layout" section explains it.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['http'],
  ['site'],
  ['(root)'],
  ['batch', 'data', 'seed'],
  ['core'],
  ['rules', 'events'],
  ['store'],
  ['hooks'],
  ['auth', 'serialize'],
  ['validation'],
  ['db'],
  ['query'],
  ['sql', 'uri'],
  ['edm', 'errors'],
  ['util'],
];

/** One value import from a file of one folder into a file of another. */
export interface FolderImport {
  readonly from: string;
  readonly to: string;
  /** The importing file, relative to src/, and the specifier as written. */
  readonly file: string;
  readonly specifier: string;
}

/** Every `.ts` file under `dir` (declaration files aside), relative to it, with its text. */
export function readSources(dir: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) sources.set(rel, fs.readFileSync(path.join(dir, rel), 'utf8'));
    }
  };
  walk('');
  return sources;
}

/** The folder a path relative to src/ belongs to. */
function folderOf(rel: string): string {
  const slash = rel.indexOf('/');
  return slash < 0 ? '(root)' : rel.slice(0, slash);
}

/** true when the import declaration brings no value: `import type`, or only `type` names. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly));
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

/** The relative specifiers a file imports as values: static imports, re-exports and `import()`. */
function valueSpecifiers(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!typeOnly(node)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg !== undefined && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
  return found.filter((s) => s.startsWith('.'));
}

/** The value imports that cross a folder boundary, from sources keyed by their path relative to src/. */
export function folderImports(sources: ReadonlyMap<string, string>): FolderImport[] {
  const imports: FolderImport[] = [];
  for (const [file, text] of sources) {
    for (const specifier of valueSpecifiers(file, text)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) imports.push({ from, to, file, specifier });
    }
  }
  return imports;
}

/** The imports that break LAYERS (into the same layer or one above), and the folders LAYERS does not name. */
export function layeringProblems(imports: readonly FolderImport[], layers: readonly (readonly string[])[] = LAYERS): string[] {
  const layerOf = new Map<string, number>();
  layers.forEach((folders, i) => folders.forEach((f) => layerOf.set(f, i)));
  const problems: string[] = [];
  for (const i of imports) {
    const from = layerOf.get(i.from);
    const to = layerOf.get(i.to);
    if (from === undefined || to === undefined) problems.push(`${i.file}: folder '${from === undefined ? i.from : i.to}' is in no layer (test/helpers/folder-imports.ts LAYERS)`);
    else if (to <= from) problems.push(`${i.file} imports '${i.specifier}': ${i.from} may not import ${i.to} (${to === from ? 'same layer' : 'a higher layer'})`);
  }
  return problems;
}
