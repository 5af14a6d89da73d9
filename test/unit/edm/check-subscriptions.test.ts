/**
 * src/edm/check-subscriptions.ts on copies of the shipped model: no navigation may lead into an
 * owner-scoped type, and the webhookSupportedResources type must be global, read-only, keyed by a string
 * `resource` and beside a change subscription type. The shipped model itself loads.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModel } from '../../../src/edm/load-model.js';
import { editJson, problemsOf } from '../../helpers/broken-model.js';
import { SHIPPED_METADATA } from '../../fixtures/model.js';

function copy(): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'check-subscriptions-')), 'metadata');
  fs.cpSync(SHIPPED_METADATA, dir, { recursive: true });
  return dir;
}

test('the shipped model loads with its subscription types and the subscribable sets', () => {
  const model = loadModel(SHIPPED_METADATA);
  expect(model.changeSubscriptionType?.entitySet).toBe('subscriptions');
  expect(model.webhookResourceType?.entitySet).toBe('webhookSupportedResources');
  expect(model.changeSubscriptionType?.capabilities.deleteRequiresIfMatch).toBe(true);
});

test('a navigation into an owner-scoped type is refused, naming the navigation', () => {
  const dir = copy();
  editJson(dir, 'entities/contact.json', (doc) => ({ ...doc, navigationProperties: [{ name: 'subscriptions', target: 'subscription', collection: true, joins: [{ source: 'number', target: 'userId' }] }] }));
  const problems = problemsOf(dir);
  expect(problems).toContainEqual(expect.objectContaining({ file: expect.stringMatching(/contact\.json$/), pointer: '/navigationProperties/0/target', message: expect.stringContaining('subscription has an owner scope, so no navigation may lead to it') }));
});

test.each([
  ['company-scoped', (doc: Record<string, unknown>) => ({ ...doc, scope: 'company' }), '/scope', 'must be global'],
  ['writable', (doc: Record<string, unknown>) => ({ ...doc, capabilities: { insertable: true, updatable: false, deletable: false } }), '/capabilities', 'clients may only read it'],
  ['keyed otherwise', (doc: Record<string, unknown>) => ({ ...doc, key: 'name', properties: [...(doc['properties'] as unknown[]), { name: 'name', type: 'Edm.String', maxLength: 10, nullable: false }] }), '/key', 'must be keyed by a stored Edm.String property "resource"'],
  ['with a required property the service cannot fill', (doc: Record<string, unknown>) => ({ ...doc, properties: [...(doc['properties'] as unknown[]), { name: 'note', type: 'Edm.String', maxLength: 10, nullable: false }] }), '/properties', 'required properties the service cannot fill (note)'],
])('a webhookSupportedResources type %s is refused', (_what, edit, pointer, message) => {
  const dir = copy();
  editJson(dir, 'entities/webhookSupportedResource.json', edit);
  expect(problemsOf(dir)).toContainEqual(expect.objectContaining({ file: expect.stringMatching(/webhookSupportedResource\.json$/), pointer, message: expect.stringContaining(message) }));
});

test('webhookResourceEntityType without changeSubscriptionEntityType, or naming no type, is refused', () => {
  const dir = copy();
  editJson(dir, 'service.json', (doc) => {
    const { changeSubscriptionEntityType: _dropped, ...rest } = doc;
    return rest;
  });
  fs.rmSync(path.join(dir, 'entities', 'subscription.json'));
  expect(problemsOf(dir)).toContainEqual(expect.objectContaining({ pointer: '/webhookResourceEntityType', message: expect.stringContaining('names no "changeSubscriptionEntityType"') }));
  const other = copy();
  editJson(other, 'service.json', (doc) => ({ ...doc, webhookResourceEntityType: 'webhookResource' }));
  expect(problemsOf(other)).toContainEqual(expect.objectContaining({ pointer: '/webhookResourceEntityType', message: 'No entity type "webhookResource" is declared.' }));
});
