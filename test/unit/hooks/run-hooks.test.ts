/**
 * src/hooks/run-hooks.ts: the phase runners. validateWrite and actions may be sync or async; beforeWrite
 * is awaited and may change the values; afterCommit failures are logged and do not stop the next hook.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { runAction, runAfterCommit, runBeforeWrite, runValidateWrite } from '../../../src/hooks/run-hooks.js';
import type { ActionContext, EntityHooks, HookContext, HookServices, TxContext, ValidateWriteContext } from '../../../src/hooks/types.js';
import { loadTestModel } from '../../fixtures/model.js';

const base: HookContext = { entityType: 'engChangeOrder', entitySet: 'engChangeOrders', requestId: 'req-1', user: { userId: 'U', companies: new Set(['c1']), grants: new Map([['c1', new Set(['SUPER'])]]) }, companyId: 'c1' };
const unused = (): never => {
  throw new Error('not used by these tests');
};
const txBase: TxContext = { ...base, db: { get: async () => undefined, find: async () => [] }, tx: { create: unused, update: unused, delete: async () => false }, emit: () => undefined };
const validateCtx: ValidateWriteContext = { ...txBase, op: 'delete', before: { id: 'x' } };
const services: HookServices = { model: loadTestModel(), outbound: { checkDestination: unused, post: unused }, callTimeoutMs: 5000 };

test('validateWrite runs, sync or async; its errors pass through unchanged', async () => {
  const seen: string[] = [];
  await runValidateWrite({ entityType: 'engChangeOrder', validateWrite: (ctx) => void seen.push(ctx.op) }, validateCtx);
  await runValidateWrite(
    {
      entityType: 'engChangeOrder',
      validateWrite: async (ctx) => {
        await ctx.db.get('engChangeOrder', 'x');
        seen.push(`async ${ctx.op}`);
      },
    },
    validateCtx,
  );
  expect(seen).toEqual(['delete', 'async delete']);
  await runValidateWrite(undefined, validateCtx);
  await runValidateWrite({ entityType: 'engChangeOrder' }, validateCtx);
  const refusing: EntityHooks = {
    entityType: 'engChangeOrder',
    validateWrite: () => {
      throw new RangeError('no');
    },
  };
  await expect(runValidateWrite(refusing, validateCtx)).rejects.toThrow(RangeError);
  await expect(runValidateWrite({ entityType: 'engChangeOrder', validateWrite: async () => Promise.reject(new TypeError('later')) }, validateCtx)).rejects.toThrow(TypeError);
});

test('an action may answer at once or with a promise; no row is undefined', async () => {
  const ctx: ActionContext = { ...txBase, action: 'createEngChangeOrder', entity: { id: 'x' } };
  expect(await runAction(() => Promise.resolve({ id: 'y' }), ctx)).toEqual({ id: 'y' });
  expect(await runAction(() => ({ id: 'y' }), ctx)).toEqual({ id: 'y' });
  expect(await runAction(() => undefined, ctx)).toBeUndefined();
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
