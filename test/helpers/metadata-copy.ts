/**
 * A copy of the repository's metadata/ in a temporary folder with other limits in service.json, for
 * tests of the limits (a test service reads its model from `metadataDir`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ServiceLimits } from '../../src/edm/service-limits.js';
import { REPO_METADATA } from './test-service.js';

/** The folder of the copy of `from` (the repository's metadata/ unless said); its service.json `limits` are the copied ones with `limits` over them. */
export function metadataWithLimits(limits: Partial<ServiceLimits>, from: string = REPO_METADATA): string {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-limits-')), 'metadata');
  fs.cpSync(from, dir, { recursive: true });
  const file = path.join(dir, 'service.json');
  const service = JSON.parse(fs.readFileSync(file, 'utf8')) as { limits: Record<string, unknown> };
  service.limits = { ...service.limits, ...limits };
  fs.writeFileSync(file, JSON.stringify(service, null, 2));
  return dir;
}

/** A fresh SQLite file path in a temporary folder (read threads need a database in a file). */
export function tempDbFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ecn-db-')), 'db.sqlite');
}

/** The folder of a copy of `from` whose service.json `webhooks` settings are the copied ones with `webhooks` over them. */
export function metadataWithWebhooks(webhooks: Record<string, number>, limits: Partial<ServiceLimits> = {}, from: string = REPO_METADATA): string {
  const dir = metadataWithLimits(limits, from);
  const file = path.join(dir, 'service.json');
  const service = JSON.parse(fs.readFileSync(file, 'utf8')) as { webhooks?: Record<string, unknown> };
  service.webhooks = { ...service.webhooks, ...webhooks };
  fs.writeFileSync(file, JSON.stringify(service, null, 2));
  return dir;
}
