/**
 * src/edm/check-permission-sets.ts: permission-set names are declared in service.json; a typo in an
 * entity file is a load error with a "did you mean"; grants take only declared sets (and SUPER).
 */
import path from 'node:path';
import { loadModel } from '../../../src/edm/load-model.js';
import { knownPermissionSets } from '../../../src/auth/permission-sets.js';
import { copyFixtureModel, editJson, problemsOf, type JsonDocument } from '../../helpers/broken-model.js';
import { loadTestModel } from '../../fixtures/model.js';

test('the fixture declares its sets; SUPER is built in; the grantable sets are exactly those', () => {
  const model = loadTestModel();
  expect(model.permissionSets.map((s) => s.name)).toEqual(['ECN-READ', 'ECN-WRITE', 'TASK-READ', 'TASK-WRITE', 'EVENTS']);
  expect(model.permissionSets.every((s) => s.description.length > 10)).toBe(true);
  expect(knownPermissionSets(model)).toEqual(['ECN-READ', 'ECN-WRITE', 'EVENTS', 'SUPER', 'TASK-READ', 'TASK-WRITE']);
});

test('a misspelt set in permissions is a load error naming file, pointer and the set meant', () => {
  const dir = copyFixtureModel();
  editJson(dir, 'entities/engChangeNoticeComment.json', (doc) => ({ ...doc, permissions: { read: 'ECN-REED', write: 'ECN-WRITE' } }));
  const problems = problemsOf(dir);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatchObject({ file: path.join(dir, 'entities/engChangeNoticeComment.json'), pointer: '/permissions/read' });
  expect(problems[0]?.message).toBe('The permission set "ECN-REED" is not declared in service.json.');
  expect(problems[0]?.fix).toMatch(/^use "ECN-READ" \(did you mean it\?\)/);
});

test('a misspelt set in a row scope is reported too', () => {
  const dir = copyFixtureModel();
  editJson(dir, 'entities/externalEventSubscription.json', (doc) => ({ ...doc, rowScope: { ...(doc['rowScope'] as JsonDocument), permission: 'EVENT' } }));
  const problems = problemsOf(dir);
  expect(problems.map((p) => [p.pointer, p.fix.slice(0, 30)])).toEqual([['/rowScope/permission', 'use "EVENTS" (did you mean it?']]);
});

test('a set declared twice, SUPER declared, and a service.json without permissionSets are load errors', () => {
  const twice = copyFixtureModel();
  editJson(twice, 'service.json', (doc) => ({ ...doc, permissionSets: [...(doc['permissionSets'] as JsonDocument[]), { name: 'EVENTS', description: 'again' }, { name: 'SUPER', description: 'all' }] }));
  expect(problemsOf(twice).map((p) => [p.pointer, p.message])).toEqual([
    ['/permissionSets/5/name', 'The permission set "EVENTS" is declared twice.'],
    ['/permissionSets/6/name', 'SUPER is built in (it allows everything) and is not declared.'],
  ]);
  const none = copyFixtureModel();
  editJson(none, 'service.json', ({ permissionSets: _dropped, ...rest }) => rest);
  expect(problemsOf(none).map((p) => p.message)).toEqual(['The required member "permissionSets" is missing.']);
});

test('a new set declared in service.json can guard a new entity', () => {
  const dir = copyFixtureModel();
  editJson(dir, 'service.json', (doc) => ({ ...doc, permissionSets: [...(doc['permissionSets'] as JsonDocument[]), { name: 'ECN-READ-ALL', description: 'Reads change reasons.' }] }));
  editJson(dir, 'entities/changeReason.json', (doc) => ({ ...doc, permissions: { read: 'ECN-READ-ALL', write: 'ECN-WRITE' } }));
  expect(loadModel(dir).entityTypeByName.get('changeReason')?.permissions?.read).toBe('ECN-READ-ALL');
});
