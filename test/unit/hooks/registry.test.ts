/**
 * src/hooks/registry.ts: the hook module list is checked against the model at start-up, Fastify-style
 * (a typo stops the service with the name and a suggestion), and the synchronous phase refuses a hook
 * that returns a promise (src/hooks/run-hooks.ts).
 */
import { buildHookRegistry, HookRegistryError } from '../../../src/hooks/registry.js';
import { defineHooks, validatesUpdate, type EntityHooks } from '../../../src/hooks/types.js';
import { businessRules } from '../../../src/rules/index.js';
import { loadModel } from '../../../src/edm/load-model.js';
import { startTestService } from '../../helpers/test-service.js';
import { loadTestModel, SHIPPED_METADATA } from '../../fixtures/model.js';
import { FIXTURE_RULES } from '../../fixtures/rules.js';
import { refused } from '../../rules/rule-helpers.js';

const model = loadTestModel();

/** A module as plain JavaScript could write it: TypeScript would reject these at compile time. */
const loose = (module: Record<string, unknown>): EntityHooks => module as unknown as EntityHooks;

function registryError(modules: EntityHooks[]): HookRegistryError {
  try {
    buildHookRegistry(model, modules);
  } catch (e) {
    if (e instanceof HookRegistryError) return e;
    throw e;
  }
  throw new Error('expected a HookRegistryError');
}

test.each([
  ['the service’s own rule modules fit its model, metadata/', () => loadModel(SHIPPED_METADATA), businessRules],
  ['the framework tests’ rule modules fit the fixture model', () => model, FIXTURE_RULES],
] as const)('%s', async (_name, modelOf, rules) => {
  const m = modelOf();
  const registry = buildHookRegistry(m, rules);
  const ecn = m.entityTypeByName.get('engChangeNotice');
  if (ecn === undefined) throw new Error('no engChangeNotice');
  expect(registry.forType(ecn)?.entityType).toBe('engChangeNotice');
  expect(typeof registry.action(ecn, 'createEngChangeOrder')).toBe('function');
  expect(registry.action(ecn, 'nope')).toBeUndefined();
});

test('an unknown entity type names the module and suggests the closest type', async () => {
  const e = registryError([defineHooks({ entityType: 'engChangeNotic' })]);
  expect(e.code).toBe('HOOK_UNKNOWN_ENTITY_TYPE');
  expect(e.message).toContain("Hook module #1 (engChangeNotic): there is no entity type 'engChangeNotic'");
  expect(e.message).toContain('use "engChangeNotice" (did you mean it?)');
});

test.each([
  ['validateWrit', 'validateWrite'],
  ['beforeUpdate', 'beforeWrite'],
  ['aftercommit', 'afterCommit'],
])('a misspelt hook name %s is refused with a suggestion', async (name, meant) => {
  const e = registryError([loose({ entityType: 'engChangeOrder', [name]: () => undefined })]);
  expect(e.code).toBe('HOOK_NOT_SUPPORTED');
  expect(e.message).toContain(`'${name}' is not a supported hook`);
  expect(e.message).toContain(`use "${meant}" (did you mean it?)`);
});

test('a hook that is not a function, a second module for one type, an undeclared action', async () => {
  expect(registryError([loose({ entityType: 'engChangeOrder', validateWrite: 'yes' })]).code).toBe('HOOK_INVALID_HANDLER');
  expect(registryError([defineHooks({ entityType: 'engChangeOrder' }), defineHooks({ entityType: 'engChangeOrder' })]).message).toContain(
    'Hook module #2: engChangeOrder already has a hook module',
  );
  const action = registryError([defineHooks({ entityType: 'engChangeNotice', actions: { createEngChangeOrdr: () => undefined } })]);
  expect(action.code).toBe('HOOK_UNKNOWN_ACTION');
  expect(action.message).toContain('use "createEngChangeOrder" (did you mean it?)');
  expect(registryError([defineHooks({ entityType: 'engChangeOrder', actions: { createEngChangeOrder: () => undefined } })]).code).toBe('HOOK_UNKNOWN_ACTION');
  expect(registryError([loose({ validateWrite: () => undefined })]).code).toBe('HOOK_INVALID_MODULE');
});

test('createService refuses to start with a bad module', async () => {
  await expect(startTestService({ rules: [...FIXTURE_RULES, loose({ entityType: "engChangeOrderTask", validateWrit: () => undefined })] })).rejects.toThrow(HookRegistryError);
});

test('an async validateWrite that rejects rolls its write back: 500 for a plain error, logged with its name', async () => {
  let ran = 0;
  const asyncRule = loose({
    entityType: 'engChangeOrder',
    validateWrite: async (ctx: { db: { find(type: string, where: object): Promise<unknown[]> } }) => {
      ran++;
      await ctx.db.find('engChangeOrderTask', {});
      throw new Error('rejected after an awaited read');
    },
  });
  const t = await startTestService({ rules: [asyncRule] });
  try {
    const eco = (await t.call('GET', '/engChangeOrders?$top=1')).json.value[0];
    const errors: string[] = [];
    (t.service.log as unknown as { error: (obj: { err?: Error }) => void }).error = (obj) => void errors.push(`${obj.err?.name ?? ''}: ${obj.err?.message ?? ''}`);
    await refused(t, () => t.call('PATCH', `/engChangeOrders(${eco.id})`, { body: { description: 'changed' }, headers: { 'If-Match': '*' } }), 500, 'Internal_ServerError', 'CorrelationId');
    expect(ran).toBe(1);
    expect(errors).toEqual([expect.stringContaining('Error: rejected after an awaited read')]);
    expect((await t.call('GET', `/engChangeOrders(${eco.id})`)).json.description).toBe(eco.description);
  } finally {
    await t.close();
  }
});

test("a framework module's phases run before the rule module's of the same type; the rule's actions stay", async () => {
  const calls: string[] = [];
  const framework = defineHooks({ entityType: 'engChangeNotice', beforeWrite: () => void calls.push('framework'), validateWrite: () => void calls.push('framework.validate') });
  const rule = defineHooks({ entityType: 'engChangeNotice', beforeWrite: () => void calls.push('rule'), actions: { createEngChangeOrder: () => undefined } });
  const registry = buildHookRegistry(model, [rule], [framework]);
  const ecn = model.entityTypeByName.get('engChangeNotice');
  if (ecn === undefined) throw new Error('no engChangeNotice');
  const module = registry.forType(ecn);
  await module?.beforeWrite?.({} as never);
  await module?.validateWrite?.({} as never);
  expect(calls).toEqual(['framework', 'rule', 'framework.validate']);
  expect(module?.afterCommit).toBeUndefined();
  expect(typeof registry.action(ecn, 'createEngChangeOrder')).toBe('function');
  const alone = buildHookRegistry(model, [], [framework]).forType(ecn);
  expect(alone).toBe(framework);
});

test('validatesOnUpdate names stored properties of the type, beside a validateWrite; a misspelt one is refused with a suggestion', async () => {
  const validate = (): undefined => undefined;
  expect(() => buildHookRegistry(model, [defineHooks({ entityType: 'engChangeNotice', validateWrite: validate, validatesOnUpdate: ['status'] })])).not.toThrow();
  const misspelt = registryError([defineHooks({ entityType: 'engChangeNotice', validateWrite: validate, validatesOnUpdate: ['statu'] })]);
  expect(misspelt.code).toBe('HOOK_INVALID_FIELDS');
  expect(misspelt.message).toContain("'validatesOnUpdate' names 'statu', which is not a stored property of engChangeNotice");
  expect(misspelt.message).toContain('use "status" (did you mean it?)');
  // A computed property is no field a write sets.
  expect(registryError([defineHooks({ entityType: 'engChangeNotice', validateWrite: validate, validatesOnUpdate: ['bomExists'] })]).message).toContain("'bomExists', which is not a stored property");
  expect(registryError([defineHooks({ entityType: 'engChangeNotice', validatesOnUpdate: ['status'] })]).message).toContain('the module has no validateWrite');
  expect(registryError([loose({ entityType: 'engChangeNotice', validateWrite: validate, validatesOnUpdate: 'status' })]).message).toContain('must be a list of property names');
});

test('validatesOnUpdate: an update that sets none of the fields does not run the rule; with a framework module the framework check still runs', async () => {
  const calls: string[] = [];
  const rule = defineHooks({ entityType: 'engChangeNotice', validateWrite: (ctx) => void calls.push(`rule ${ctx.op}`), validatesOnUpdate: ['status'] });
  const framework = defineHooks({ entityType: 'engChangeNotice', validateWrite: (ctx) => void calls.push(`framework ${ctx.op}`) });
  const ecn = model.entityTypeByName.get('engChangeNotice');
  if (ecn === undefined) throw new Error('no engChangeNotice');
  expect(validatesUpdate(buildHookRegistry(model, [rule]).forType(ecn), ['drawingNumber'])).toBe(false);
  expect(validatesUpdate(buildHookRegistry(model, [rule]).forType(ecn), ['drawingNumber', 'status'])).toBe(true);
  const both = buildHookRegistry(model, [rule], [framework]).forType(ecn);
  expect(both?.validatesOnUpdate).toBeUndefined();
  expect(validatesUpdate(both, ['drawingNumber'])).toBe(true);
  await both?.validateWrite?.({ op: 'update', changed: new Set(['drawingNumber']) } as never);
  await both?.validateWrite?.({ op: 'update', changed: new Set(['status']) } as never);
  expect(calls).toEqual(['framework update', 'framework update', 'rule update']);
});
