/**
 * src/edm/etag.ts: the version an If-Match names is read back only from exactly one ETag this
 * service wrote, so a one-statement update (store/one-statement-update.ts) can make it its condition.
 */
import { etagMatches, formatEtag, versionOfEtag } from '../../../src/edm/etag.js';

test('one ETag of this service names its version, weak or not, with spaces around', () => {
  for (const v of [1, 42, 1795827338335000, Number.MAX_SAFE_INTEGER]) {
    const tag = formatEtag(v);
    expect(versionOfEtag(tag)).toBe(v);
    expect(versionOfEtag(` ${tag.slice(2)} `)).toBe(v);
    expect(etagMatches(tag, formatEtag(v))).toBe(true);
  }
});

test('anything else names no version: *, a list, another form, a base64 text that is not a version', () => {
  const one = formatEtag(1795827338335000);
  expect(versionOfEtag('*')).toBeUndefined();
  expect(versionOfEtag(`${one}, ${formatEtag(7)}`)).toBeUndefined();
  expect(versionOfEtag('W/"not base64!"')).toBeUndefined();
  expect(versionOfEtag(`W/"${Buffer.from('12a').toString('base64')}"`)).toBeUndefined();
  expect(versionOfEtag(`W/"${Buffer.from('0042').toString('base64')}"`)).toBeUndefined(); // not how 42 is written
  expect(versionOfEtag(`W/"${Buffer.from('9999999999999999').toString('base64')}"`)).toBeUndefined(); // past a safe integer
  expect(versionOfEtag(`W/"${Buffer.from('12345678901234567').toString('base64')}"`)).toBeUndefined(); // past 16 digits
  expect(versionOfEtag('')).toBeUndefined();
});
