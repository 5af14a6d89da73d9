import { parsePreference, parsePrefer } from '../../../src/uri/parse-prefer.js';
import { syntaxError } from './helpers.js';

test('the OData preferences, with and without the odata. prefix', () => {
  const { preferences, invalid } = parsePrefer(
    'odata.maxpagesize=50, return=minimal,odata.include-annotations="*,-Core.*,Ns.Term#q", allow-entityreferences, wait = 10, respond-async, odata.track-changes, omit-values=nulls, continue-on-error=false, odata.callback;url="http://x/cb"',
  );
  expect(invalid).toEqual([]);
  expect(preferences).toEqual({
    maxPageSize: 50,
    return: 'minimal',
    includeAnnotations: ['*', '-Core.*', 'Ns.Term#q'],
    allowEntityReferences: true,
    wait: 10,
    respondAsync: true,
    trackChanges: true,
    omitValues: 'nulls',
    continueOnError: false,
    callback: 'http://x/cb',
    other: new Map(),
  });
});

test('unknown preferences are kept; malformed ones are reported, not thrown (RFC 7240 §2)', () => {
  const { preferences, invalid } = parsePrefer('handling=strict, odata.maxpagesize=0, return=Minimal');
  expect(preferences.other.get('handling')).toBe('strict');
  expect(preferences.maxPageSize).toBeUndefined();
  expect(invalid.map((i) => i.text)).toEqual(['odata.maxpagesize=0', 'return=Minimal']);
});

test('a single preference is checked strictly', () => {
  expect(syntaxError(() => parsePreference('odata.maxpagesize=-1')).position).toBe(18);
  expect(syntaxError(() => parsePreference('odata.include-annotations="Namespace"')).position).toBe(36);
  expect(parsePreference('continue-on-error').continueOnError).toBe(true);
});
