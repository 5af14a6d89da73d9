/**
 * src/edm/check-properties.ts: a misspelt Edm type gets the "did you mean" the README promises, once,
 * without follow-on problems (facets, joins, computed paths) that only repeat it.
 */
import path from 'node:path';
import { copyFixtureModel, editJson, problemsOf, type JsonDocument } from '../../helpers/broken-model.js';

test('"Edm.Strin" is one problem: Unknown type, did you mean "Edm.String"', () => {
  const dir = copyFixtureModel();
  editJson(dir, 'entities/contact.json', (doc) => ({
    ...doc,
    properties: (doc['properties'] as JsonDocument[]).map((p) => (p['name'] === 'number' ? { ...p, type: 'Edm.Strin' } : p)),
  }));
  const problems = problemsOf(dir);
  expect(problems).toHaveLength(1);
  expect(problems[0]?.file).toBe(path.join(dir, 'entities/contact.json'));
  expect(problems[0]?.pointer).toMatch(/^\/properties\/\d+\/type$/);
  expect(problems[0]?.message).toBe('Unknown type "Edm.Strin".');
  expect(problems[0]?.fix).toMatch(/^use "Edm\.String" \(did you mean it\?\), or a supported Edm primitive: /);
});

test('an Edm type far from any primitive names the supported ones without a guess', () => {
  const dir = copyFixtureModel();
  editJson(dir, 'entities/changeReason.json', (doc) => ({
    ...doc,
    properties: (doc['properties'] as JsonDocument[]).map((p) => (p['name'] === 'description' ? { ...p, type: 'Edm.Geography' } : p)),
  }));
  const problems = problemsOf(dir);
  expect(problems).toHaveLength(1);
  expect(problems[0]?.fix).not.toContain('did you mean');
  expect(problems[0]?.fix).toContain('Edm.TimeOfDay');
});
