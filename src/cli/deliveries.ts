/**
 * `ecn-odata deliveries`: the operator's view of webhook notifications and their attempts (status code
 * or network error, time, duration, outcome), read from the database the service writes.
 */
import type { NotificationStatus } from '../db/framework-tables.js';
import { formatDelivery, listDeliveries, type DeliveryKind } from '../events/delivery-log.js';
import { parseFlags, UsageError } from './args.js';
import { openStores } from './open-stores.js';

/** Help text of `deliveries`. */
export const DELIVERIES_HELP = `Usage: ecn-odata deliveries [options]

Lists webhook notifications, newest first, each with its delivery attempts: business events
(#<id>) and entity changes (#c<id>, the entries of one or more subscriptions on one URL).

Options:
  --status S         only Pending, Sent or Failed notifications
  --kind K           only events (business events) or changes (entity changes)
  --limit N          at most N notifications (default 50)
  --json             print JSON instead of text
  --db DB            SQLite database file or postgres:// URL (default data/ecn.sqlite)
  --metadata DIR     model folder (default: the packaged metadata/)
  -h, --help         show this help`;

const STATUSES: readonly NotificationStatus[] = ['Pending', 'Sent', 'Failed'];

/** Runs `deliveries`; returns the exit code. */
export async function deliveries(argv: string[]): Promise<number> {
  const { values, help } = parseFlags('deliveries', argv, {
    status: { type: 'string' },
    kind: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    db: { type: 'string' },
    metadata: { type: 'string' },
  });
  if (help) {
    console.log(DELIVERIES_HELP);
    return 0;
  }
  const status = values['status'];
  if (status !== undefined && !STATUSES.includes(status as NotificationStatus)) {
    throw new UsageError(`ecn-odata deliveries: --status takes ${STATUSES.join(', ')}, got '${String(status)}'.`);
  }
  const kindText = values['kind'];
  if (kindText !== undefined && kindText !== 'events' && kindText !== 'changes') throw new UsageError(`ecn-odata deliveries: --kind takes events or changes, got '${String(kindText)}'.`);
  const kind: DeliveryKind | undefined = kindText === undefined ? undefined : kindText === 'events' ? 'event' : 'changes';
  const limitText = values['limit'] ?? '50';
  if (typeof limitText !== 'string' || !/^\d+$/.test(limitText) || Number(limitText) < 1) throw new UsageError(`ecn-odata deliveries: --limit takes a positive whole number, got '${String(limitText)}'.`);
  const stores = await openStores(typeof values['db'] === 'string' ? values['db'] : 'data/ecn.sqlite', typeof values['metadata'] === 'string' ? values['metadata'] : undefined);
  try {
    const entries = await listDeliveries(stores.engine, { ...(status === undefined ? {} : { status: status as NotificationStatus }), ...(kind === undefined ? {} : { kind }), limit: Number(limitText) });
    if (values['json'] === true) console.log(JSON.stringify(entries, null, 2));
    else if (entries.length === 0) console.log(status === undefined ? 'No webhook notifications.' : `No ${String(status)} webhook notifications.`);
    else for (const entry of entries) console.log(formatDelivery(entry).join('\n'));
    return 0;
  } finally {
    await stores.close();
  }
}
