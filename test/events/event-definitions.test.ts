/**
 * GET {base_url}/externalbusinesseventdefinitions (conventions §6): the rows written at start-up from
 * metadata/events, addressed by the alternate key (appId, name, eventVersion) in any order, 404 for an
 * unknown key, read-only, readable by any authenticated user, and the same id after a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { FIXTURE_METADATA } from '../fixtures/model.js';
import { expectError } from '../rules/rule-helpers.js';
import { definitionId } from '../../src/events/event-definitions.js';

const APP_ID = '386390e8-f22c-4a6e-bad6-7699b9547004';
const SET = '/externalbusinesseventdefinitions';
const BY_KEY = `${SET}(appId=${APP_ID},name='EngChangeOrderTaskActivated',eventVersion='1.0')`;

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t.close());

const definition = {
  id: definitionId(APP_ID, 'EngChangeOrderTaskActivated', '1.0'),
  appId: APP_ID,
  name: 'EngChangeOrderTaskActivated',
  eventVersion: '1.0',
  displayName: 'Eng. Change Order Task is activated',
  description: 'Triggered when Eng. Change Order Task is activated',
  category: 'ECN Service: Eng. Change Order',
  payload: '[{"Index":0,"Name":"engChangeOrderTaskId","Type":"Guid"}]',
  appName: 'ECN Service',
  appPublisher: 'ECN Service',
  appVersion: '1.0.0.0',
};

test('the list holds the declared event with the fields of conventions §6', async () => {
  const r = await t.call('GET', SET);
  expect(r.status).toBe(200);
  expect(r.json['@odata.context']).toBe('http://localhost/api/v2.0/$metadata#externalbusinesseventdefinitions');
  expect(r.json.value).toEqual([{ '@odata.etag': expect.any(String), ...definition }]);
  expect(JSON.parse(r.json.value[0].payload)).toEqual([{ Index: 0, Name: 'engChangeOrderTaskId', Type: 'Guid' }]);
});

test('one definition by its alternate key, in any order of the names; by id too', async () => {
  const r = await t.call('GET', BY_KEY);
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({ '@odata.context': 'http://localhost/api/v2.0/$metadata#externalbusinesseventdefinitions/$entity', ...definition });
  const reordered = await t.call('GET', `${SET}(eventVersion='1.0',appId=${APP_ID},name='EngChangeOrderTaskActivated')`);
  expect(reordered.json).toMatchObject(definition);
  expect((await t.call('GET', `${SET}(${definition.id})`)).json).toMatchObject(definition);
  expect((await t.call('GET', `${BY_KEY}/displayName`)).json.value).toBe(definition.displayName);
  expect((await t.call('GET', `${SET}?$filter=name eq 'EngChangeOrderTaskActivated' and eventVersion eq '1.0'&$select=name,category`)).json.value).toEqual([
    { '@odata.etag': expect.any(String), id: definition.id, name: definition.name, category: definition.category },
  ]);
});

test('an unknown alternate key value is 404 Internal_RecordNotFound naming the values', async () => {
  for (const url of [
    `${SET}(appId=${APP_ID},name='NoSuchEvent',eventVersion='1.0')`,
    `${SET}(appId=${APP_ID},name='EngChangeOrderTaskActivated',eventVersion='2.0')`,
    `${SET}(appId=00000000-0000-0000-0000-000000000001,name='EngChangeOrderTaskActivated',eventVersion='1.0')`,
  ]) {
    const r = await t.call('GET', url);
    expectError(r, 404, 'Internal_RecordNotFound', 'The externalBusinessEventDefinition does not exist');
    expect(r.json.error.message).toContain("name='");
  }
});

test('key predicates that are neither the key nor an alternate key are 400 naming both forms', async () => {
  const partial = await t.call('GET', `${SET}(appId=${APP_ID},name='EngChangeOrderTaskActivated')`);
  expectError(partial, 400, 'BadRequest_InvalidRequestUrl', `${SET.slice(1)}(appId=<value>,name=<value>,eventVersion=<value>)`);
  const badType = await t.call('GET', `${SET}(appId='not-a-guid',name='EngChangeOrderTaskActivated',eventVersion='1.0')`);
  expectError(badType, 400, 'BadRequest_InvalidRequestUrl', "property 'appId'");
  const unquoted = await t.call('GET', `${SET}(appId=${APP_ID},name='EngChangeOrderTaskActivated',eventVersion=1.0)`);
  expectError(unquoted, 400, 'BadRequest_InvalidRequestUrl', "property 'eventVersion'");
});

test('read-only: POST, PATCH and DELETE are 405', async () => {
  expectError(await t.call('POST', SET, { body: { name: 'X' } }), 405, 'BadRequest_MethodNotAllowed', 'cannot be created');
  expectError(await t.call('PATCH', BY_KEY, { body: { displayName: 'X' }, headers: { 'If-Match': '*' } }), 405, 'BadRequest_MethodNotAllowed', 'read-only');
  expectError(await t.call('DELETE', BY_KEY), 405, 'BadRequest_MethodNotAllowed', 'cannot be deleted');
});

test('readable by any authenticated user, whatever their permission sets; not without a token', async () => {
  for (const user of ['KLEE', 'AUDITOR', 'PLANNER', 'JSMITH']) {
    const r = await t.call('GET', BY_KEY, { token: await t.token(user) });
    expect([user, r.status]).toEqual([user, 200]);
  }
  expectError(await t.call('GET', SET, { token: null }), 401, 'Authentication_InvalidCredentials', '');
});

test('$metadata declares the alternate key (Core.AlternateKeys) in XML and JSON', async () => {
  const xml = (await t.call('GET', '/$metadata')).text;
  const type = xml.slice(xml.indexOf('<EntityType Name="externalBusinessEventDefinition">'), xml.indexOf('</EntityType>', xml.indexOf('<EntityType Name="externalBusinessEventDefinition">')));
  expect(type).toContain('<Annotation Term="Core.AlternateKeys">');
  expect(type.match(/PropertyPath="(\w+)"/g)).toEqual(['PropertyPath="appId"', 'PropertyPath="name"', 'PropertyPath="eventVersion"']);
  const json = (await t.call('GET', '/$metadata?$format=json')).json;
  expect(json['Microsoft.NAV'].externalBusinessEventDefinition['@Core.AlternateKeys']).toEqual([
    { Key: [{ Name: { $PropertyPath: 'appId' } }, { Name: { $PropertyPath: 'name' } }, { Name: { $PropertyPath: 'eventVersion' } }] },
  ]);
});

test('start-up keeps the same row (same id) and updates a changed declaration, deletes a removed one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'event-defs-'));
  const metadata = path.join(dir, 'metadata');
  fs.cpSync(FIXTURE_METADATA, metadata, { recursive: true });
  const dbFile = path.join(dir, 'db.sqlite');
  const rows = (s: TestService): unknown[] => s.service.db.raw.prepare('SELECT id, displayName FROM externalbusinesseventdefinitions ORDER BY id').all();
  try {
    const first = await startTestService({ metadataDir: metadata, dbFile });
    expect(rows(first)).toEqual([{ id: definition.id, displayName: definition.displayName }]);
    await first.close();
    const file = path.join(metadata, 'events', 'EngChangeOrderTaskActivated.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(file, JSON.stringify({ ...doc, displayName: 'Task activated' }));
    fs.writeFileSync(path.join(metadata, 'events', 'EngChangeOrderTaskActivated.2.0.json'), JSON.stringify({ ...doc, version: '2.0' }));
    const second = await startTestService({ metadataDir: metadata, dbFile });
    const v2 = definitionId(APP_ID, 'EngChangeOrderTaskActivated', '2.0');
    expect(rows(second)).toEqual(
      [
        { id: definition.id, displayName: 'Task activated' },
        { id: v2, displayName: definition.displayName },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    await second.close();
    fs.rmSync(path.join(metadata, 'events', 'EngChangeOrderTaskActivated.2.0.json'));
    const third = await startTestService({ metadataDir: metadata, dbFile });
    expect(rows(third)).toEqual([{ id: definition.id, displayName: 'Task activated' }]);
    await third.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
