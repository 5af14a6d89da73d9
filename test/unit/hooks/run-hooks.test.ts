/**
 * src/hooks/run-hooks.ts: the phase runners. Synchronous phases refuse thenables; beforeWrite is awaited
 * and may change the values; afterCommit failures are logged and do not stop the next hook.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { HookContractError, runAction, runAfterCommit, runBeforeWrite, runValidateWrite } from '../../../src/hooks/run-hooks.js';
import type { ActionContext, EntityHooks, HookContext, HookServices, TxContext, ValidateWriteContext } from '../../../src/hooks/types.js';
import { loadTestModel } from '../../fixtures/model.js';

const base: HookContext = { entityType: 'engChangeOrder', entitySet: 'engChangeOrders', requestId: 'req-1', user: { userId: 'U', companies: new Set(['c1']), grants: new Map([['c1', new Set(['SUPER'])]]) }, companyId: 'c1' };
const unused = (): never => {
  throw new Error('not used by these tests');
};
const txBase: TxContext = { ...base, db: { get: () => undefined, find: () => [] }, tx: { create: unused, update: unused, delete: () => false }, emit: () => undefined };
const validateCtx: ValidateWriteContext = { ...txBase, op: 'delete', before: { id: 'x' } };
const services: HookServices = { model: loadTestModel(), outbound: { checkDestination: unused, post: unused }, callTimeoutMs: 5000 };

test('validateWrite that returns a promise → HookContractError naming the module', () => {
  const hooks = { entityType: 'engChangeOrder', validateWrite: (async () => undefined) as () => void } satisfies EntityHooks;
  expect(() => runValidateWrite(hooks, validateCtx)).toThrow(HookContractError);
  expect(() => runValidateWrite(hooks, validateCtx)).toThrow('validateWrite of engChangeOrder returned a promise');
});

test('a synchronous validateWrite runs; its BusinessRuleError passes through unchanged', () => {
  const seen: string[] = [];
  runValidateWrite({ entityType: 'engChangeOrder', validateWrite: (ctx) => void seen.push(ctx.op) }, validateCtx);
  expect(seen).toEqual(['delete']);
  runValidateWrite(undefined, validateCtx);
  runValidateWrite({ entityType: 'engChangeOrder' }, validateCtx);
  const refusing: EntityHooks = {
    entityType: 'engChangeOrder',
    validateWrite: () => {
      throw new RangeError('no');
    },
  };
  expect(() => runValidateWrite(refusing, validateCtx)).toThrow(RangeError);
});

test('an action that returns a promise → HookContractError', () => {
  const ctx: ActionContext = { ...txBase, action: 'createEngChangeOrder', entity: { id: 'x' } };
  expect(() => runAction((() => Promise.resolve({ id: 'y' })) as unknown as () => undefined, ctx)).toThrow('the action engChangeOrder.createEngChangeOrder returned a promise');
  expect(runAction(() => ({ id: 'y' }), ctx)).toEqual({ id: 'y' });
});

test('beforeWrite is awaited and may change, add and remove values', async () => {
  const hooks: EntityHooks = {
    entityType: 'engChangeOrder',
    beforeWrite: async (ctx) => {
      await new Promise((resolve) => setImmediate(resolve));
      ctx.changes['description'] = String(ctx.changes['description']).trim();
      ctx.changes['status'] = 'New';
      delete ctx.changes['number'];
    },
  };
  const out = await runBeforeWrite(hooks, { ...base, op: 'create', key: undefined, services }, new Map([['description', '  padded  '], ['number', 'X']]));
  expect([...out]).toEqual([['description', 'padded'], ['status', 'New']]);
  expect([...(await runBeforeWrite(undefined, { ...base, op: 'create', key: undefined, services }, new Map([['a', 1]])))]).toEqual([['a', 1]]);
});

test('afterCommit failures are logged with the correlation id and do not stop later hooks', async () => {
  const chunks: string[] = [];
  const log = pino({ level: 'info' }, new Writable({ write(chunk, _enc, cb) { chunks.push(String(chunk)); cb(); } }));
  const seen: string[] = [];
  const failing: EntityHooks = { entityType: 'engChangeOrder', afterCommit: async () => Promise.reject(new Error('webhook down')) };
  const fine: EntityHooks = { entityType: 'engChangeOrderTask', afterCommit: (ctx) => void seen.push(`${ctx.entityType} ${ctx.op}`) };
  await runAfterCommit([{ hooks: failing, ctx: { ...base, op: 'update' } }, { hooks: undefined, ctx: { ...base, op: 'create' } }, { hooks: fine, ctx: { ...base, entityType: 'engChangeOrderTask', op: 'delete' } }], log);
  expect(seen).toEqual(['engChangeOrderTask delete']);
  const logged = chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ msg: 'afterCommit hook failed', correlationId: 'req-1', entityType: 'engChangeOrder', op: 'update' });
});
