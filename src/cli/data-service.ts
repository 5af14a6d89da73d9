/**
 * The service the data commands (seed, import, export) work on: the model, the database (created and
 * migrated), the hook registry with the rules, no webhook delivery (events rules raise stay in the
 * outbox for the server to deliver). Database failures are one-line start-up errors.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultOptions, DEFAULT_WEBHOOKS } from '../config.js';
import { createService, type Service } from '../service.js';
import { businessRules } from '../rules/index.js';
import type { Principal } from '../auth/principal.js';
import { databaseFailure, isDatabaseFailure } from './startup-error.js';
import { UsageError } from './args.js';
import { parseDatabaseLocation } from '../db/database-location.js';
import { chooseFrom } from '../edm/suggest-name.js';
import type { EntityType } from '../edm/model.js';

/** Opens the service of a data command. */
export async function openDataService(command: string, dbFile: string, metadataDir: string | undefined): Promise<Service> {
  try {
    const where = parseDatabaseLocation(dbFile);
    if (where.kind === 'sqlite' && where.file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(where.file)), { recursive: true });
    const options = defaultOptions({ dbFile, logLevel: 'warn', ...(metadataDir === undefined ? {} : { metadataDir }) });
    return await createService({ ...options, webhooks: { ...DEFAULT_WEBHOOKS, deliver: false } }, businessRules);
  } catch (e) {
    if (isDatabaseFailure(e)) throw databaseFailure(command, dbFile, e);
    throw e;
  }
}

/** The entity set a data command names and the company its rows belong to (undefined for a global set); UsageError otherwise. */
export async function setAndCompany(command: string, service: Service, set: string, company: string | boolean | undefined): Promise<{ type: EntityType; companyId: string | undefined }> {
  const type = service.model.entityTypeBySet.get(set);
  if (type === undefined) throw new UsageError(`ecn-odata ${command}: there is no entity set '${set}'; ${chooseFrom(set, [...service.model.entityTypeBySet.keys()], 'an entity set')}.`);
  if (type.scope === 'company' && typeof company !== 'string') throw new UsageError(`ecn-odata ${command}: ${set} is company-scoped; name the company with --company <id or name>.`);
  if (type.scope === 'global' && company !== undefined) throw new UsageError(`ecn-odata ${command}: ${set} is not company-scoped; leave out --company.`);
  return { type, companyId: typeof company === 'string' ? await service.context.users.companyId(company) : undefined };
}

/** The operator a data command writes as (currentUser defaults, rules' identity): every company, every set. */
export function operator(userId: string): Principal {
  return { userId, companies: new Set(), grants: new Map() };
}
