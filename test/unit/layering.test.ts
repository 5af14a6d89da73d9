/**
 * Imports run one way between the folders of src/: each folder imports only folders of lower layers
 * (test/helpers/folder-imports.ts LAYERS), so no value import can close a cycle between folders.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { folderImports, LAYERS, layeringProblems, readSources } from '../helpers/folder-imports.js';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const sources = readSources(SRC);

test('every value import between folders of src/ goes to a lower layer', () => {
  expect(layeringProblems(folderImports(sources))).toEqual([]);
});

test('every folder of src/ has a layer', () => {
  const folders = new Set([...sources.keys()].map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : '(root)')));
  const named = new Set(LAYERS.flat());
  expect([...folders].filter((f) => !named.has(f))).toEqual([]);
});

test('a planted back edge is found: the engine importing the store', () => {
  const planted = new Map(sources);
  planted.set('db/engine.ts', `import { enqueue } from '../store/outbox.js';\n${sources.get('db/engine.ts') ?? ''}`);
  expect(layeringProblems(folderImports(planted))).toEqual(["db/engine.ts imports '../store/outbox.js': db may not import store (a higher layer)"]);
});

test('type-only imports do not count, an import() does', () => {
  const planted = new Map(sources);
  const text = sources.get('db/engine.ts') ?? '';
  planted.set('db/engine.ts', `import type { OutboxEvent } from '../store/outbox.js';\nimport { type WriteSession } from '../store/write-session.js';\n${text}`);
  expect(layeringProblems(folderImports(planted))).toEqual([]);
  planted.set('db/engine.ts', `${text}\nexport const later = (): Promise<unknown> => import('../core/handle.js');\n`);
  expect(layeringProblems(folderImports(planted))).toEqual(["db/engine.ts imports '../core/handle.js': db may not import core (a higher layer)"]);
});

test('two folders of one layer may not import each other', () => {
  const planted = new Map(sources);
  planted.set('sql/build.ts', `import { lex } from '../uri/lexer.js';\n${sources.get('sql/build.ts') ?? ''}`);
  expect(layeringProblems(folderImports(planted))).toEqual(["sql/build.ts imports '../uri/lexer.js': sql may not import uri (same layer)"]);
});
