/**
 * The access cache's reads of the version on an engine that answers with promises (PostgreSQL): the
 * requests of one cache epoch share one read, also while it is under way; a read counts for the
 * epoch it began in; one of an older epoch that answers late changes nothing.
 */
import { AccessCache } from '../../../src/auth/access-cache.js';
import type { DbRow } from '../../../src/db/engine.js';

/** An engine whose epoch the test moves and whose reads of the version the test answers. */
function fakeEngine() {
  const reads: { resolve: (row: DbRow) => void; reject: (e: unknown) => void }[] = [];
  const engine = {
    cacheEpoch: 1,
    db: {
      get: () => new Promise<DbRow | undefined>((resolve, reject) => reads.push({ resolve, reject })),
    },
  };
  return { engine, reads };
}

/** A principal cached under "u" (a later lookup that calls its loader means the cache was emptied). */
async function cachedAgain(cache: AccessCache): Promise<boolean> {
  let loaded = false;
  await cache.principal('u', () => {
    loaded = true;
    return null;
  });
  return !loaded;
}

test('the requests of one epoch share one read of the version, also while it is under way', async () => {
  const { engine, reads } = fakeEngine();
  const cache = new AccessCache(engine as never);
  const three = [cache.refresh(), cache.refresh(), cache.refresh()];
  expect(reads).toHaveLength(1);
  reads[0]?.resolve({ version: '1' });
  await Promise.all(three);
  expect(cache.refresh()).toBeUndefined();
  expect(reads).toHaveLength(1);
  engine.cacheEpoch = 2;
  void cache.refresh();
  expect(reads).toHaveLength(2);
});

test('a read counts for the epoch it began in: when the epoch moved meanwhile, the next request reads again', async () => {
  const { engine, reads } = fakeEngine();
  const cache = new AccessCache(engine as never);
  const first = cache.refresh();
  // A write that changed the version commits while the read is under way.
  engine.cacheEpoch = 2;
  reads[0]?.resolve({ version: '1' });
  await first;
  const second = cache.refresh();
  expect(reads).toHaveLength(2);
  await cache.principal('u', () => null);
  reads[1]?.resolve({ version: '2' });
  await second;
  expect(await cachedAgain(cache)).toBe(false);
});

test('a read of an older epoch that answers after a newer one changes nothing', async () => {
  const { engine, reads } = fakeEngine();
  const cache = new AccessCache(engine as never);
  const older = cache.refresh();
  engine.cacheEpoch = 2;
  const newer = cache.refresh();
  reads[1]?.resolve({ version: '2' });
  await newer;
  await cache.principal('u', () => null);
  reads[0]?.resolve({ version: '1' });
  await older;
  expect(await cachedAgain(cache)).toBe(true);
  expect(cache.refresh()).toBeUndefined();
});

test('a failed read fails its requests; the next request of the epoch reads again', async () => {
  const { engine, reads } = fakeEngine();
  const cache = new AccessCache(engine as never);
  const failed = cache.refresh();
  const joined = cache.refresh();
  reads[0]?.reject(new Error('connection lost'));
  await expect(failed).rejects.toThrow('connection lost');
  await expect(joined).rejects.toThrow('connection lost');
  const again = cache.refresh();
  expect(reads).toHaveLength(2);
  reads[1]?.resolve({ version: '1' });
  await again;
  expect(cache.refresh()).toBeUndefined();
});
