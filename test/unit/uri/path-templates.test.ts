import { parseResourcePath } from '../../../src/uri/parse-path.js';
import { guidRuns, PathTemplates } from '../../../src/uri/path-templates.js';
import { outcome } from './helpers.js';

const A = '0b3e7c1a-5d2f-4a8e-9c61-20240601b001';
const B = 'F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9';
const C = '9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

const shapes = [
  (g: string, h: string) => `/companies(${g})/engChangeNotices(${h})`,
  (g: string, h: string) => `/companies(id=${g})/engChangeNotices(id=${h})/engChangeNoticeComments`,
  (g: string, h: string) => `/engChangeOrders(${g})/engChangeOrderTasks(${h})/Microsoft.NAV.activate`,
  (g: string, h: string) => `/companies(${g})/engChangeNotices(${h})/number/$value`,
  (g: string) => `/companies(${g})/engChangeNotices/$count`,
  () => '/engChangeNotices',
  () => '/',
  // GUIDs the template cannot stand for: inside a string key, glued to a name, split by percent-encoding, a segment of its own
  (g: string) => `/items('${g}')`,
  (g: string) => `/items(abc${g})`,
  (g: string) => `/items(%3${g.slice(1)})`,
  (g: string, h: string) => `/items/${g}/${h}`,
  (g: string, h: string) => `/items(${g}${h})`,
  // errors, reported in the path's own words
  (g: string) => `/companies(${g}`,
  (g: string) => `/companies(${g}))`,
  (g: string) => `/companies(${g.slice(0, 35)}x)`,
  (g: string, h: string) => `/companies(${g},${h})`,
  // after a minus sign a digit makes a number (a syntax error here), a letter a negation of the GUID
  (g: string, h: string) => `/companies(${g})/engChangeNotices/$filter(-${h})`,
  (g: string, h: string) => `/companies(${g})/engChangeNotices/$filter(id eq -${h} or not -${g})`,
  (g: string, h: string) => `/companies(${g})/engChangeNotices/$filter(id in (%2D${h}, +${g}))`,
];

/** Random sources that fix the placeholders: their first character is then 0/a, 1/b, 1/f or 7/d. */
const SOURCES = [0, 1, 0x0b, 0x1b].map((b) => (n: number) => Buffer.alloc(n, b));

test.each(shapes.map((s, i) => [i, s]))('shape %i: every path parses exactly as parseResourcePath parses it, the first time and from the template', (_i, shape) => {
  for (const random of [undefined, ...SOURCES]) {
    const templates = new PathTemplates(256, random);
    for (const [g, h] of [[A, B], [B, C], [C, A], [A, A], [B, B], [C, C]] as const) {
      const path = shape(g, h);
      expect(outcome((p) => templates.parse(p), path)).toEqual(outcome(parseResourcePath, path));
    }
  }
});

test('a filled parse is a copy: the template and earlier results keep their GUIDs', () => {
  const templates = new PathTemplates();
  templates.parse(`/companies(${B})/engChangeNotices(${C})`); // learned the second time
  const first = templates.parse(`/companies(${A})/engChangeNotices(${B})`);
  const snapshot = JSON.stringify(first);
  const second = templates.parse(`/companies(${C})/engChangeNotices(${A})`);
  expect(JSON.stringify(first)).toBe(snapshot);
  expect(first).toEqual(parseResourcePath(`/companies(${A})/engChangeNotices(${B})`));
  expect(second).toEqual(parseResourcePath(`/companies(${C})/engChangeNotices(${A})`));
  expect(JSON.stringify(second)).toContain(C);
  expect(JSON.stringify(second)).not.toContain(B.toLowerCase());
});

test('more shapes than it keeps: still every parse right', () => {
  const templates = new PathTemplates(4);
  for (let i = 0; i < 60; i++) {
    const path = `/set${i % 7}(${i % 2 === 0 ? A : C})/nav${i % 9}`;
    expect(templates.parse(path)).toEqual(parseResourcePath(path));
  }
});

test('an over-long path is refused before any work, as parseResourcePath refuses it', () => {
  const path = `/companies(${A})/${'x'.repeat(40_000)}`;
  expect(outcome((p) => new PathTemplates().parse(p), path)).toEqual(outcome(parseResourcePath, path));
  expect(outcome(parseResourcePath, path)).toMatchObject({ error: 'QueryLimitError' });
});

describe('guidRuns', () => {
  const GUID_RUN = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;
  const byRegex = (text: string): number[] => [...text.matchAll(GUID_RUN)].map((m) => m.index as number);

  it('finds what the regular expression finds, leftmost first and not overlapping', () => {
    const g = '0b3e7c1a-5d2f-4a8e-9c61-20240601b001';
    for (const text of [
      '',
      g,
      `/companies(${g})/engChangeNotices(${g.toUpperCase()})`,
      `${g}${g}`,
      `a${g}b`,
      `0b3e7c1a-5d2f-4a8e-9c61-20240601b001f-5d2f-4a8e-9c61-20240601b001`,
      `${g.slice(0, 35)}x${g}`,
      `0b3e7c1a0-5d2f-4a8e-9c61-20240601b001`,
      `${'a'.repeat(40)}-${g}`,
      'gggggggg-5d2f-4a8e-9c61-20240601b001',
    ]) {
      expect(guidRuns(text)).toEqual(byRegex(text));
    }
  });

  it('agrees with the regular expression on random texts of GUIDs, broken GUIDs and GUID characters', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return (seed >>> 8) % n;
    };
    const hex = '0123456789abcdefABCDEF';
    const guidText = (): string => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => hex[next(hex.length)]).join('')).join('-');
    const pieces: Array<() => string> = [
      guidText,
      // one character changed: to a non-digit, to a dash, or a dash to a digit
      () => {
        const g = guidText();
        const i = next(36);
        return g.slice(0, i) + ['g', '-', '0', '('][next(4)] + g.slice(i + 1);
      },
      () => guidText().slice(next(36)),
      () => guidText().slice(0, next(36)),
      () => '0123456789abcdefABCDEF-g(/)'[next(27)] as string,
    ];
    let runs = 0;
    for (let n = 0; n < 3000; n++) {
      let text = '';
      const count = next(6);
      for (let i = 0; i < count; i++) text += (pieces[next(pieces.length)] as () => string)();
      const expected = byRegex(text);
      runs += expected.length;
      expect(guidRuns(text)).toEqual(expected);
    }
    expect(runs).toBeGreaterThan(1000); // the texts do hold GUID runs, also next to and inside broken ones
  });
});
