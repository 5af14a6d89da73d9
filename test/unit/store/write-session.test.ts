/**
 * src/store/write-session.ts and tx-access.ts through the real write operations, with test-only hook
 * modules: the phase order (beforeWrite → transaction with validateWrite → afterCommit), what each phase
 * sees, rule mistakes answered as 500 with nothing written, and the outbox written only in a transaction.
 */
import { startTestService, type TestService } from '../../helpers/test-service.js';
import { defineHooks, type EntityHooks, type Row, type TxWriter, type WriteOp } from '../../../src/hooks/types.js';
import { refused } from '../../rules/rule-helpers.js';
import { inOneWriteTransaction, inWriteBatch, type WriteSession } from '../../../src/store/write-session.js';

/** The messages of the errors the service logs from now on (a 500's cause is only in the log). */
function loggedErrors(t: TestService): string[] {
  const messages: string[] = [];
  const log = t.service.log as unknown as { error: (obj: { err?: unknown }) => void };
  log.error = (obj) => void messages.push(obj.err instanceof Error ? `${obj.err.name}: ${obj.err.message}` : String(obj.err));
  return messages;
}

function withRules(rules: EntityHooks[], body: (t: TestService) => Promise<void>): () => Promise<void> {
  return async () => {
    const t = await startTestService({ rules });
    try {
      await body(t);
    } finally {
      await t.close();
    }
  };
}

test(
  'phases run in order, beforeWrite may normalise, afterCommit sees the committed row',
  (() => {
    const calls: string[] = [];
    let t: TestService | undefined;
    const rule = defineHooks({
      entityType: 'engChangeOrder',
      async beforeWrite(ctx) {
        calls.push(`before ${ctx.op} key=${ctx.key ?? '-'}`);
        if (typeof ctx.changes['description'] === 'string') ctx.changes['description'] = ctx.changes['description'].trim();
        await Promise.resolve();
      },
      validateWrite(ctx) {
        calls.push(`validate ${ctx.op}${ctx.op === 'update' ? ` [${[...ctx.changed].join(',')}]` : ''}`);
      },
      afterCommit(ctx) {
        const id = String((ctx.after ?? ctx.before)?.['id']);
        const stored = t?.service.db.raw.prepare('SELECT description FROM "engChangeOrders" WHERE id = ?').get(id) as { description: string } | undefined;
        calls.push(`after ${ctx.op} stored=${stored?.description ?? 'gone'}`);
      },
    });
    return withRules([rule], async (svc) => {
      t = svc;
      const eco = (await svc.call('POST', '/engChangeOrders', { body: { description: '  padded  ' } })).json;
      expect(eco.description).toBe('padded');
      await svc.call('PATCH', `/engChangeOrders(${eco.id})`, { body: { description: ' b ' }, headers: { 'If-Match': '*' } });
      await svc.call('PUT', `/engChangeOrders(${eco.id})/changeDescription`, { body: Buffer.from('text'), headers: { 'Content-Type': 'text/plain', 'If-Match': '*' } });
      await svc.call('DELETE', `/engChangeOrders(${eco.id})`);
      expect(calls).toEqual([
        'before create key=-',
        'validate create',
        'after create stored=padded',
        `before update key=${eco.id}`,
        'validate update [description]',
        'after update stored=b',
        `before update key=${eco.id}`,
        'validate update [changeDescription]',
        'after update stored=b',
        `before delete key=${eco.id}`,
        'validate delete',
        'after delete stored=gone',
      ]);
    });
  })(),
);

test(
  'an afterCommit failure is logged, not returned: the write stands',
  withRules([defineHooks({ entityType: 'engChangeOrder', afterCommit: () => Promise.reject(new Error('mail server down')) })], async (t) => {
    const r = await t.call('POST', '/engChangeOrders', { body: { description: 'kept' } });
    expect(r.status).toBe(201);
    expect((await t.call('GET', `/engChangeOrders(${r.json.id})`)).json.description).toBe('kept');
  }),
);

test.each<[string, (tx: TxWriter, task: Row) => unknown]>([
  ['an unknown entity type', (tx, task) => tx.update('engChangeOrdr', String(task['engChangeOrderId']), { description: 'x' })],
  ['an unknown property', (tx, task) => tx.update('engChangeOrder', String(task['engChangeOrderId']), { descripton: 'x' })],
  ['a computed property', (tx, task) => tx.update('engChangeOrderTask', String(task['id']), { assignedEmail: 'x' })],
])('a rule that writes %s is a 500 and nothing is written', async (_name, write) => {
  const rule = defineHooks({
    entityType: 'engChangeOrderTask',
    async validateWrite(ctx) {
      if (ctx.op === 'update') await write(ctx.tx, ctx.after);
    },
  });
  await withRules([rule], async (t) => {
    const task = (await t.call('GET', '/engChangeOrderTasks?$top=1')).json.value[0];
    const errors = loggedErrors(t);
    await refused(t, () => t.call('PATCH', `/engChangeOrderTasks(${task.id})`, { body: { processedBy: 'X' }, headers: { 'If-Match': '*' } }), 500, 'Internal_ServerError', 'CorrelationId');
    expect(errors).toEqual([expect.stringMatching(/A rule (named the entity type 'engChangeOrdr'|set engChangeOrder\.descripton|set engChangeOrderTask\.assignedEmail)/)]);
  })();
});

test(
  'a rule that keeps triggering itself is stopped (500) and nothing is written',
  withRules(
    [
      defineHooks({
        entityType: 'engChangeOrder',
        async validateWrite(ctx) {
          if (ctx.op === 'update') await ctx.tx.update('engChangeOrder', String(ctx.after['id']), { description: 'again' });
        },
      }),
    ],
    async (t) => {
      const eco = (await t.call('GET', '/engChangeOrders?$top=1')).json.value[0];
      const errors = loggedErrors(t);
      await refused(t, () => t.call('PATCH', `/engChangeOrders(${eco.id})`, { body: { description: 'x' }, headers: { 'If-Match': '*' } }), 500, 'Internal_ServerError', 'CorrelationId');
      expect(errors).toEqual([expect.stringContaining('nested deeper than 200 levels (at engChangeOrder)')]);
    },
  ),
);

test(
  'emit writes the outbox row in the transaction; a later refusal rolls it back',
  withRules(
    [
      defineHooks({
        entityType: 'engChangeOrder',
        validateWrite(ctx) {
          const op: WriteOp = ctx.op;
          const id = op === 'delete' ? undefined : (ctx as { after: Row }).after['id'];
          ctx.emit('EngChangeOrderTaskActivated', { engChangeOrderTaskId: id });
          if (ctx.op === 'update' && ctx.after['description'] === 'refuse') throw new Error('refused after emit');
        },
      }),
    ],
    async (t) => {
      const eco = (await t.call('POST', '/engChangeOrders', { body: { description: 'ok' } })).json;
      const rows = (): unknown[] => t.service.db.raw.prepare('SELECT eventName, eventVersion, payload, userId FROM "_outbox"').all();
      expect(rows()).toEqual([{ eventName: 'EngChangeOrderTaskActivated', eventVersion: '1.0', payload: `{"engChangeOrderTaskId":"${eco.id}"}`, userId: 'ADMIN' }]);
      await refused(t, () => t.call('PATCH', `/engChangeOrders(${eco.id})`, { body: { description: 'refuse' }, headers: { 'If-Match': '*' } }), 500, 'Internal_ServerError', 'CorrelationId');
      expect(rows()).toHaveLength(1);
    },
  ),
);

test.each([
  ['an undeclared event', 'EngChangeOrderTaskStarted', { engChangeOrderTaskId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }, '1.0', 'which metadata/events does not declare'],
  ['an undeclared version', 'EngChangeOrderTaskActivated', { engChangeOrderTaskId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab' }, '2.0', 'EngChangeOrderTaskActivated version 2.0'],
  ['a missing payload field', 'EngChangeOrderTaskActivated', {}, '1.0', 'declares (engChangeOrderTaskId)'],
  ['an extra payload field', 'EngChangeOrderTaskActivated', { engChangeOrderTaskId: '2f0c0a6e-1b2c-4d5e-8f90-0123456789ab', extra: 1 }, '1.0', 'declares (engChangeOrderTaskId)'],
  ['a value of the wrong type', 'EngChangeOrderTaskActivated', { engChangeOrderTaskId: 42 }, '1.0', 'not a Guid'],
])('emit of %s is a HookContractError: 500, nothing written', async (_what, name, payload, version, message) => {
  const rule = defineHooks({ entityType: 'engChangeOrder', validateWrite: (ctx) => ctx.emit(name, payload, version) });
  await withRules([rule], async (t) => {
    const errors = loggedErrors(t);
    await refused(t, () => t.call('POST', '/engChangeOrders', { body: { description: 'x' } }), 500, 'Internal_ServerError', 'CorrelationId');
    expect(errors).toEqual([expect.stringMatching(new RegExp(`^HookContractError: .*${message.replace(/[().]/g, '\\$&')}`))]);
  })();
});

test(
  'a rule that forgets to await a failing write still fails the write with its error, inside the transaction',
  withRules(
    [
      defineHooks({
        entityType: 'engChangeOrder',
        validateWrite(ctx) {
          if (ctx.op === 'update') void ctx.tx.update('engChangeOrder', '00000000-0000-0000-0000-000000000000', { description: 'x' });
        },
      }),
    ],
    async (t) => {
      const eco = (await t.call('GET', '/engChangeOrders?$top=1')).json.value[0];
      const errors = loggedErrors(t);
      await refused(t, () => t.call('PATCH', `/engChangeOrders(${eco.id})`, { body: { description: 'changed' }, headers: { 'If-Match': '*' } }), 404, 'Internal_RecordNotFound', '');
      expect(errors).toEqual([]);
      expect((await t.call('GET', `/engChangeOrders(${eco.id})`)).json.description).toBe(eco.description);
    },
  ),
);

test(
  'a transaction the engine runs again (one that lost to another writer) runs the afterCommit hooks of the run that committed, once',
  (() => {
    const after: string[] = [];
    const rule = defineHooks({
      entityType: 'engChangeOrder',
      afterCommit(ctx) {
        after.push(String(ctx.after?.['description']));
      },
    });
    return withRules([rule], async (t) => {
      const svc = t.service.context;
      const engine = svc.engine;
      const real = engine.transaction.bind(engine);
      const rerun = new Error('lost to another writer');
      // Each transaction's body runs twice: first in a savepoint that is undone (as a rerun batch is), then for real.
      (engine as { transaction: typeof engine.transaction }).transaction = (body) =>
        real(async (tx) => {
          await tx.savepoint(async () => {
            await body(tx);
            throw rerun;
          }).catch((e: unknown) => {
            if (e !== rerun) throw e;
          });
          return body(tx);
        });
      const principal = { userId: 'ADMIN', companies: new Set<string>(), grants: new Map() };
      const identity = { companyId: t.companyIds[0], principal, requestId: 'r1', now: new Date() };
      const type = svc.model.entityTypeByName.get('engChangeOrder');
      if (type === undefined) throw new Error('engChangeOrder');
      const create = (description: string) => async (session: WriteSession) => session.create(type, new Map([['description', description]]));
      await inOneWriteTransaction(svc, [{ identity, body: create('set a') }, { identity, body: create('set b') }]);
      await inWriteBatch(svc, identity, ['batch a', 'batch b'], (session, d) => create(d)(session));
      expect(after).toEqual(['set a', 'set b', 'batch a', 'batch b']);
    });
  })(),
);
