/**
 * The rows of `webhookSupportedResources` (conventions §12; Business Central lists the resources its
 * `subscriptions` API accepts there): one per entity set whose model file says `"subscribable": true`,
 * keyed by the set's name, written at start-up (a set that stops being subscribable is deleted). Clients
 * only read the set (its capabilities are all false), so it is an ordinary read-only entity set: in
 * $metadata, the service document and OpenAPI, with every query option.
 */
import { WEBHOOK_RESOURCE_KEY } from '../edm/check-subscriptions.js';
import type { ServiceContext } from '../core/service-context.js';
import { insertEntity } from '../store/insert-entity.js';
import { writeDelete } from '../store/update-entity.js';
import { compile } from '../sql/compile.js';
import { planSelect } from '../query/plan-select.js';

/** Brings the rows in line with the model's subscribable sets, in one transaction; returns what changed. */
export async function syncWebhookResources(svc: ServiceContext): Promise<{ inserted: number; deleted: number }> {
  const type = svc.model.webhookResourceType;
  const report = { inserted: 0, deleted: 0 };
  if (type === undefined) return report;
  const wanted = new Set(svc.model.entityTypes.filter((t) => t.subscribable).map((t) => t.entitySet));
  const now = new Date();
  await svc.engine.transaction(async (tx) => {
    const stored = new Set<string>();
    for (const row of await tx.all(compile(planSelect({ type, companyId: undefined, conditions: [] }), svc.engine.dialect))) {
      const resource = String(row[WEBHOOK_RESOURCE_KEY]);
      if (wanted.has(resource)) {
        stored.add(resource);
        continue;
      }
      await writeDelete(svc, tx, type, resource);
      report.deleted++;
    }
    for (const resource of wanted) {
      if (stored.has(resource)) continue;
      await insertEntity(svc, tx, type, undefined, new Map([[WEBHOOK_RESOURCE_KEY, resource]]), { userId: 'SYSTEM', now });
      report.inserted++;
    }
  });
  return report;
}
