/**
 * `ecn-odata types`: writes the TypeScript row types of the model (src/edm/row-types.ts) for rule
 * modules, to a file or to stdout. npm test compares the committed src/rules/generated/rows.ts with
 * what this command generates from metadata/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../config.js';
import { loadModel } from '../edm/load-model.js';
import { generateRowTypes } from '../edm/row-types.js';
import { parseFlags } from './args.js';

/** Help text of `types`. */
export const TYPES_HELP = `Usage: ecn-odata types [options]

Generates TypeScript row types (stored form) and enum member constants from the model, for the rule
modules in src/rules/. Run it after changing metadata/:

  npm run build && node dist/src/cli/main.js types --out src/rules/generated/rows.ts

Options:
  --metadata DIR   model folder (default: the packaged metadata/)
  --out FILE       file to write (default: print to stdout)
  -h, --help       show this help`;

/** The import path of src/hooks/types.js from a file in `dir`, ESM style. */
function hooksImport(dir: string): string {
  const relative = path.relative(dir, path.join(packageRoot(), 'src', 'hooks', 'types.js')).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** Runs `types`; returns the exit code. */
export function types(argv: string[]): number {
  const { values, help } = parseFlags('types', argv, { metadata: { type: 'string' }, out: { type: 'string' } });
  if (help) {
    console.log(TYPES_HELP);
    return 0;
  }
  const metadataDir = typeof values['metadata'] === 'string' ? values['metadata'] : path.join(packageRoot(), 'metadata');
  const model = loadModel(metadataDir);
  const out = values['out'];
  const source = path.relative(packageRoot(), path.resolve(metadataDir)).split(path.sep).join('/') || 'metadata';
  if (typeof out !== 'string') {
    process.stdout.write(generateRowTypes(model, source, '../../hooks/types.js'));
    return 0;
  }
  const file = path.resolve(out);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, generateRowTypes(model, source, hooksImport(path.dirname(file))));
  console.log(`Wrote the row types of ${model.entityTypes.length} entity types and ${model.enumTypes.length} enum types to ${out}.`);
  return 0;
}
