/**
 * `ecn-odata subscriptions list|delete`: the operator's view of webhook subscriptions of both kinds,
 * entity-change subscriptions (the model's `changeSubscriptionEntityType`) and business-event ones
 * (`eventSubscriptionEntityType`), and their removal without the owner's token: the row is deleted
 * through the store as an API DELETE deletes it, in a transaction of its own.
 */
import { randomUUID } from 'node:crypto';
import type { StoredValue } from '../edm/values.js';
import { compile } from '../sql/compile.js';
import { planSelect } from '../query/plan-select.js';
import { readRow } from '../store/resolve-path.js';
import { rowOf } from '../store/tx-access.js';
import { inWriteTransaction } from '../store/write-session.js';
import { subscriptionKinds, type SubscriptionKind } from '../events/subscription-limits.js';
import type { Service } from '../service.js';
import { parseFlags, UsageError } from './args.js';
import { openDataService, operator } from './data-service.js';

/** Help text of `subscriptions`. */
export const SUBSCRIPTIONS_HELP = `Usage: ecn-odata subscriptions list [--company <id or name>] [options]
       ecn-odata subscriptions delete <id> [options]

Lists webhook subscriptions of both kinds, entity-change subscriptions (subscriptions: a company's
collection, with expirationDateTime) and business-event subscriptions (externaleventsubscriptions), one
per line: id, kind, company, user, what it subscribes to, notificationUrl, expiry. delete removes one
of either kind by its id (subscriptionId, or the business event subscription's id), as an API DELETE
by its owner would; the subscriber is not told.

Options:
  --company C        list: only the subscriptions of this company (id or name)
  --json             list: print JSON instead of text
  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

/** One subscription as listed. */
interface Listed {
  readonly id: string;
  readonly kind: 'change' | 'event';
  readonly companyId: string;
  readonly userId: string;
  /** The resource of an entity-change subscription, the event and version of a business-event one. */
  readonly subscribesTo: string;
  readonly notificationUrl: string;
  readonly expirationDateTime: string | null;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function listed(kind: SubscriptionKind, row: Readonly<Record<string, unknown>>): Listed {
  const text = (name: string): string => String(row[name] ?? '');
  return {
    id: text(kind.type.key.name),
    kind: kind.kind,
    companyId: text(kind.company),
    userId: text(kind.user),
    subscribesTo: kind.kind === 'change' ? text('resource') : `${text('eventName')} ${text('eventVersion')}`,
    notificationUrl: text('notificationUrl'),
    expirationDateTime: kind.kind === 'change' ? text('expirationDateTime') : null,
  };
}

async function list(service: Service, companyId: string | undefined): Promise<Listed[]> {
  const { engine } = service.context;
  const out: Listed[] = [];
  for (const kind of subscriptionKinds(service.model)) {
    const conditions = companyId === undefined ? [] : [{ property: kind.company, value: companyId }];
    const rows = await engine.db.all(compile(planSelect({ type: kind.type, companyId: undefined, conditions }), engine.dialect));
    for (const row of rows) out.push(listed(kind, rowOf(kind.type, row)));
  }
  return out.sort((a, b) => a.companyId.localeCompare(b.companyId) || a.userId.localeCompare(b.userId) || a.id.localeCompare(b.id));
}

/** Deletes the subscription of either kind with this id; undefined when there is none. */
async function remove(service: Service, id: string): Promise<Listed | undefined> {
  const svc = service.context;
  for (const kind of subscriptionKinds(service.model)) {
    const guid = kind.type.key.type.kind === 'primitive' && kind.type.key.type.name === 'Edm.Guid';
    const key: StoredValue = guid ? id.toLowerCase() : id;
    if (guid && !GUID.test(String(key))) continue;
    const identity = { companyId: undefined, principal: operator('OPERATOR'), requestId: randomUUID(), now: new Date() };
    const deleted = await inWriteTransaction(svc, identity, async (session) => {
      const row = await readRow(svc, session.tx, kind.type, undefined, [{ property: kind.type.key.name, value: key }]);
      if (row === undefined) return undefined;
      await session.delete(kind.type, row);
      return listed(kind, rowOf(kind.type, row));
    });
    if (deleted !== undefined) return deleted;
  }
  return undefined;
}

function line(s: Listed): string {
  return [s.id, s.kind, s.companyId, s.userId, s.subscribesTo, s.notificationUrl, s.expirationDateTime === null ? '' : `expires ${s.expirationDateTime}`].join('\t');
}

/** Runs `subscriptions`; returns the exit code. */
export async function subscriptions(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === '-h' || action === '--help') {
    console.log(SUBSCRIPTIONS_HELP);
    return action === undefined ? 2 : 0;
  }
  if (action !== 'list' && action !== 'delete') throw new UsageError(`ecn-odata subscriptions: unknown subcommand '${action}'; use list or delete. Try 'ecn-odata subscriptions --help'.`);
  const id = action === 'delete' && rest[0] !== undefined && !rest[0].startsWith('-') ? rest.shift() : undefined;
  const { values, help } = parseFlags(`subscriptions ${action}`, rest, {
    company: { type: 'string' },
    json: { type: 'boolean' },
    db: { type: 'string' },
    metadata: { type: 'string' },
  });
  if (help) {
    console.log(SUBSCRIPTIONS_HELP);
    return 0;
  }
  if (action === 'delete' && id === undefined) throw new UsageError("ecn-odata subscriptions delete: name the subscription's id: ecn-odata subscriptions delete <id>.");
  if (action === 'delete' && (values['company'] !== undefined || values['json'] !== undefined)) throw new UsageError('ecn-odata subscriptions delete: --company and --json belong to list.');
  const service = await openDataService(`subscriptions ${action}`, typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite', typeof values['metadata'] === 'string' ? values['metadata'] : undefined);
  try {
    if (subscriptionKinds(service.model).length === 0) {
      console.error('The model has no webhook subscriptions (service.json names neither changeSubscriptionEntityType nor eventSubscriptionEntityType).');
      return 1;
    }
    if (action === 'delete') {
      const deleted = await remove(service, String(id));
      if (deleted === undefined) {
        console.error(`There is no subscription '${String(id)}'; ecn-odata subscriptions list shows them.`);
        return 1;
      }
      console.log(`Deleted the ${deleted.kind === 'change' ? 'entity-change' : 'business-event'} subscription ${deleted.id} of ${deleted.userId} (${deleted.subscribesTo}).`);
      return 0;
    }
    const company = values['company'];
    const companyId = typeof company === 'string' ? await service.context.users.companyId(company) : undefined;
    const entries = await list(service, companyId);
    if (values['json'] === true) console.log(JSON.stringify(entries, null, 2));
    else if (entries.length === 0) console.log(companyId === undefined ? 'No webhook subscriptions.' : 'No webhook subscriptions in this company.');
    else for (const entry of entries) console.log(line(entry));
    return 0;
  } finally {
    await service.close();
  }
}
