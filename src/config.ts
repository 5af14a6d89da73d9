/**
 * Service options and their defaults. Nothing else in the code reads the environment.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import type { JwtSettings } from './auth/jwt-verifier.js';

/** Options of a service instance. */
export interface ServiceOptions {
  /** Folder with service.json, entities/ and enums/. */
  readonly metadataDir: string;
  /** SQLite file, or `:memory:`. */
  readonly dbFile: string;
  /** Company (id or name) used by unscoped URLs when the request names none. */
  readonly defaultCompany?: string;
  /** Log level for pino ('silent' in tests). */
  readonly logLevel: string;
  /** JWT bearer tokens from an external issuer, when configured (opaque tokens always work). */
  readonly jwt?: JwtSettings;
  /** The service document and $metadata need no token (conventions §7). */
  readonly publicMetadata: boolean;
  /** Failed authentications allowed per client address and window before 429. */
  readonly authRateLimit: { readonly windowMs: number; readonly max: number };
}

/** The repository (or installed package) root: the nearest ancestor holding metadata/service.json. */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'metadata', 'service.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('Cannot find the package root (no metadata/service.json above the code).');
    dir = parent;
  }
}

/** Default options: the packaged model, an in-memory database, info logs. */
export function defaultOptions(overrides: Partial<ServiceOptions> = {}): ServiceOptions {
  return {
    metadataDir: path.join(packageRoot(), 'metadata'),
    dbFile: ':memory:',
    logLevel: process.env['LOG_LEVEL'] ?? 'info',
    publicMetadata: true,
    authRateLimit: { windowMs: 15 * 60_000, max: 50 },
    ...overrides,
  };
}
