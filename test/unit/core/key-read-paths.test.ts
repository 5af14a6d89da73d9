import { KeyReadPaths } from '../../../src/core/key-read-paths.js';
import { checkQueryOptions } from '../../../src/core/check-query-options.js';
import { loadModel } from '../../../src/edm/load-model.js';
import { bindPath } from '../../../src/uri/bind-path.js';
import { parseResourcePath } from '../../../src/uri/parse-path.js';
import { PathTemplates } from '../../../src/uri/path-templates.js';
import { QueryOptionsCache } from '../../../src/uri/query-options-cache.js';
import { FIXTURE_METADATA } from '../../fixtures/model.js';

const model = loadModel(FIXTURE_METADATA);
const fresh = (): KeyReadPaths => new KeyReadPaths(model, new PathTemplates(), new QueryOptionsCache());

/** What the general path binds `rawPath` to (handle.ts's route without a key-read shape). */
function general(rawPath: string): unknown {
  const bound = bindPath(model, parseResourcePath(rawPath));
  checkQueryOptions(new QueryOptionsCache().parse(''), bound, 'GET');
  return bound;
}

/** A GUID whose hexadecimal digits come from `seed`, starting with a digit or a letter as asked. */
function guid(seed: number, letterFirst: boolean, upper = false): string {
  let hex = '';
  let x = seed;
  while (hex.length < 32) {
    x = (x * 1103515245 + 12345) % 2147483648;
    hex += (x >>> 8).toString(16).padStart(6, '0');
  }
  hex = (letterFirst ? 'c' : '4') + hex.slice(1, 32);
  const g = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  return upper ? g.toUpperCase() : g;
}

describe('KeyReadPaths', () => {
  const shapes: Array<(c: string, k: string) => string> = [
    (c, k) => `/companies(${c})/engChangeNotices(${k})`,
    (c, k) => `/companies(id=${c})/engChangeNotices(id=${k})`,
    (_, k) => `/engChangeNotices(${k})`,
    (_, k) => `/engChangeOrderTasks(${k})`,
    (_, k) => `/companies(${k})`,
    // A quoted GUID key binds as the GUID (the binder accepts it), for every GUID alike.
    (c, k) => `/companies(${c})/engChangeNotices('${k}')`,
  ];

  it('binds the second and later paths of a shape exactly as the general path does, whatever the GUIDs', () => {
    for (const shape of shapes) {
      const reads = fresh();
      const first = shape(guid(1, false), guid(2, false));
      expect(reads.bind(first)).toBeUndefined(); // a shape is learnt the second time it comes
      for (let i = 0; i < 40; i++) {
        // The marks tell digit-first GUIDs from letter-first ones; upper case is lowered as the parser does.
        const p = shape(guid(3 + i, i % 2 === 0, i % 3 === 0), guid(100 + i, i % 4 < 2, i % 5 === 0));
        const read = reads.bind(p);
        if (i < 4) continue; // each of the four mark combinations is learnt once
        expect(read?.bound).toEqual(general(p));
        expect(read?.options).toEqual(new QueryOptionsCache().parse(''));
      }
    }
  });

  it('leaves everything else to the general path', () => {
    const c = guid(7, false);
    const k = guid(8, true);
    const others = [
      `/companies(${c})/engChangeNotices`,
      `/companies(${c})/engChangeNotices(${k})/number`,
      `/companies(${c})/engChangeNotices(${k})/engChangeNoticeComments`,
      `/companies(${c})/engChangeNotices/$count`,
      `/companies(${c})/engChangeNotices(${k})/Microsoft.NAV.createEngChangeOrder`,
      `/companies(${c})/noSuchSet(${k})`,
      `/companies(${c})/engChangeNotices(${k})\u0000`,
      `/companies(${c})/engChangeNotices(${k})/engChangeNoticeComments(${k})/x(${c})`,
      '/companies',
      '/$metadata',
    ];
    for (const p of others) {
      const reads = fresh();
      for (let i = 0; i < 3; i++) expect(reads.bind(p)).toBeUndefined();
    }
  });

  it('keeps a bound path of its own for every request (the shape is not shared)', () => {
    const reads = fresh();
    const p = (k: string): string => `/companies(${guid(9, false)})/engChangeNotices(${k})`;
    reads.bind(p(guid(10, false)));
    const a = reads.bind(p(guid(11, false)));
    const b = reads.bind(p(guid(12, false)));
    expect(a?.bound.steps[0]?.key).toBe(guid(11, false));
    expect(b?.bound.steps[0]?.key).toBe(guid(12, false));
    expect(a?.bound.steps[0]?.keyConditions).toEqual([{ property: 'id', value: guid(11, false) }]);
  });
});
