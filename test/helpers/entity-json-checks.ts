/**
 * What the tests of the stored entity JSON share on both engines (test/unit/db/postgres/postgres-entity-json.test.ts,
 * test/unit/db/sqlite/sqlite-entity-json.test.ts): calls that must answer their status, a set read
 * both as stored and as built from the columns, the lookups of a task's e-mail followed through the
 * service's writes, and the exists properties through the related rows.
 */
import type { TestService } from './test-service.js';

export type Json = Record<string, unknown>;

/** The checks, on the service `t()` gives, under the company path `base()`; `stale` counts the rows whose stored text is out of date. */
export function entityJsonChecks(t: () => TestService, base: () => string, stale: () => Promise<Record<string, number>>) {
  /** A call that must answer `status` (201 for POST, 204 for DELETE, else 200); PATCH and DELETE with If-Match: *. */
  const ok = async (method: string, url: string, body?: unknown, status = method === 'POST' ? 201 : method === 'DELETE' ? 204 : 200): Promise<Json> => {
    const r = await t().call(method, `${base()}/${url}`, { body, headers: method === 'PATCH' || method === 'DELETE' ? { 'If-Match': '*' } : {} });
    expect(`${method} ${url} ${r.status} ${r.status === status ? '' : r.text}`).toBe(`${method} ${url} ${status} `);
    return r.json as Json;
  };

  /** GET of a set: each entity as stored, and as built from its columns (all properties but one in $select); no row is stale. */
  const expectFresh = async (set: string, filter = ''): Promise<Json[]> => {
    const type = t().service.model.entityTypes.find((x) => x.entitySet === set);
    if (type === undefined) throw new Error(set);
    const all = type.properties.filter((p) => p.storage.kind !== 'media').map((p) => p.name);
    const q = filter === '' ? '' : `&$filter=${encodeURIComponent(filter)}`;
    const whole = (await ok('GET', `${set}?$top=1000${q}`)).value as Json[];
    // Every property but the first non-key one: the object built from the columns, then compared with it added back.
    const dropped = all.find((n) => n !== type.key.name) as string;
    const built = (await ok('GET', `${set}?$top=1000${q}&$select=${all.filter((n) => n !== dropped).join(',')}`)).value as Json[];
    expect(whole.map(({ [dropped]: _, ...rest }) => rest)).toEqual(built);
    expect(await stale()).toEqual({});
    return whole;
  };

  /** A task's e-mail follows its user, the user's contact (two hops), the work center group, and the user's deletion and return. */
  const taskEmailFollowsItsLookups = async (): Promise<void> => {
    const tasks = await expectFresh('engChangeOrderTasks', "assignedTo eq 'JSMITH'");
    expect(tasks.length).toBeGreaterThan(0);
    const [user] = ((await ok('GET', "userSetups?$filter=userId eq 'JSMITH'")).value as Json[]) as [Json];
    const [contact] = ((await ok('GET', `contacts?$filter=number eq '${user['contactNo'] as string}'`)).value as Json[]) as [Json];
    await ok('PATCH', `contacts(${contact['id'] as string})`, { email: 'contact@changed.example' });
    expect((await expectFresh('engChangeOrderTasks', "assignedTo eq 'JSMITH'")).map((x) => x['assignedEmail'])).toEqual(tasks.map(() => 'contact@changed.example'));
    await ok('PATCH', `userSetups(${user['id'] as string})`, { email: 'user@changed.example' });
    expect((await expectFresh('engChangeOrderTasks', "assignedTo eq 'JSMITH'")).map((x) => x['assignedEmail'])).toEqual(tasks.map(() => 'user@changed.example'));
    await ok('DELETE', `userSetups(${user['id'] as string})`);
    expect((await expectFresh('engChangeOrderTasks', "assignedTo eq 'JSMITH'")).map((x) => x['assignedEmail'])).not.toContain('user@changed.example');
    // A new user with that id is found again (an inserted row).
    await ok('POST', 'userSetups', { userId: 'JSMITH', email: 'back@again.example' });
    expect((await expectFresh('engChangeOrderTasks', "assignedTo eq 'JSMITH'")).map((x) => x['assignedEmail'])).toEqual(tasks.map(() => 'back@again.example'));
    const [group] = ((await ok('GET', "workCenterGroups?$filter=code eq 'WC-QA'")).value as Json[]) as [Json];
    await ok('PATCH', `workCenterGroups(${group['id'] as string})`, { email: 'qa@changed.example' });
    expect((await expectFresh('engChangeOrderTasks', "workCenterGroupCode eq 'WC-QA' and assignedTo eq null")).map((x) => x['assignedEmail'])).toContain('qa@changed.example');
  };

  /**
   * Exists properties follow the related rows (POST, DELETE, another connection's SQL), a counter that
   * moves past zero builds nothing again, and a cascade leaves nothing stale.
   */
  const existsFollowRelatedRows = async (): Promise<void> => {
    const ecn = await ok('POST', 'engChangeNotices', { drawingNumber: 'D-EXISTS' });
    const id = ecn['id'] as string;
    expect(ecn['bomCommentExists']).toBe(false);
    const first = await ok('POST', `engChangeNotices(${id})/engChangeNoticeComments`, { comment: 'one' });
    expect((await ok('GET', `engChangeNotices(${id})`))['bomCommentExists']).toBe(true);
    // A marked text (a write of the column alone keeps what it writes) shows whether the next write builds the JSON again.
    await t().query(`UPDATE "engChangeNotices" SET "_entityJson" = "_entityJson" || ' ' WHERE "id" = ?`, [id]);
    await ok('POST', `engChangeNotices(${id})/engChangeNoticeComments`, { comment: 'two' });
    const [kept] = await t().query('SELECT "_count_engChangeNoticeComments" AS "n", "_entityJson" AS "j" FROM "engChangeNotices" WHERE "id" = ?', [id]);
    expect(Number(kept?.['n'])).toBe(2); // the counter was written, from 1 to 2...
    expect(String(kept?.['j']).endsWith(' ')).toBe(true); // ...and the JSON, which shows only whether it is above zero, was kept
    await t().query(`UPDATE "engChangeNotices" SET "_entityJson" = NULL WHERE "id" = ?`, [id]);
    await ok('DELETE', `engChangeNotices(${id})/engChangeNoticeComments(${first['id'] as string})`);
    expect((await ok('GET', `engChangeNotices(${id})`))['bomCommentExists']).toBe(true);
    await t().query('DELETE FROM "engChangeNoticeComments" WHERE "engChangeNoticeId" = ?', [id]);
    expect((await ok('GET', `engChangeNotices(${id})`))['bomCommentExists']).toBe(false);
    await expectFresh('engChangeNotices');
    // A deleted ECN takes its comments with it (a cascade), and nothing is left stale.
    await ok('POST', `engChangeNotices(${id})/engChangeNoticeComments`, { comment: 'three' });
    await ok('DELETE', `engChangeNotices(${id})`);
    expect(await stale()).toEqual({});
  };

  return { ok, expectFresh, taskEmailFollowsItsLookups, existsFollowRelatedRows };
}
