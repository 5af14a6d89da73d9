/**
 * Conformance against the OASIS ABNF test cases (odata-abnf-testcases.yaml, OData 4.01): every case
 * whose rule the service parses goes through the matching entry point. A positive case passes if it
 * parses completely, a negative case (FailAt) if it is rejected; whether our error position equals
 * FailAt is recorded as information (our positions count in the decoded option text).
 * The still-failing cases are kept in conformance/abnf-known-failures.md: run with UPDATE_ABNF=1 to
 * rewrite it, otherwise the test fails when the file and the results differ.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { ODataError } from '../../../src/errors/odata-error.js';
import { ConstraintViolation, entryPointFor, OUT_OF_SCOPE } from './rule-entry-points.js';
import { checkConstraints, type Constraints } from './constraint-check.js';
import { EXPLAINED, renderReport, type CaseResult } from './report.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const CORPUS = path.resolve(repo, '../shared/conformance/odata-abnf-testcases.yaml');
const REPORT = path.join(repo, 'conformance/abnf-known-failures.md');
const MIN_POSITIVE_RATE = 0.95;

interface TestCase {
  readonly Name: string;
  readonly Rule: string;
  readonly Input: string;
  readonly FailAt?: number;
}

function run(c: TestCase, constraints: Constraints): CaseResult {
  const entry = entryPointFor(c.Rule);
  const base = { rule: c.Rule, input: c.Input, name: c.Name, failAt: c.FailAt };
  if (entry === undefined) return { ...base, outcome: 'out-of-scope' };
  try {
    checkConstraints(entry(c.Input), constraints);
    return { ...base, outcome: 'accepted' };
  } catch (e) {
    if (e instanceof ConstraintViolation) return { ...base, outcome: 'rejected', position: e.position, message: `model constraint: ${e.message}` };
    if (e instanceof ODataError) {
      const position = 'position' in e && typeof e.position === 'number' ? e.position : undefined;
      return { ...base, outcome: 'rejected', message: e.message, ...(position === undefined ? {} : { position }) };
    }
    return { ...base, outcome: 'crashed', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

describe('OASIS ABNF test cases (odata-abnf-testcases.yaml)', () => {
  if (!fs.existsSync(CORPUS)) throw new Error(`ABNF corpus not found at ${CORPUS}`);
  const corpus = parse(fs.readFileSync(CORPUS, 'utf8')) as { Constraints: Constraints; TestCases: TestCase[] };
  const results = corpus.TestCases.map((c) => run(c, corpus.Constraints));
  const inScope = results.filter((r) => r.outcome !== 'out-of-scope');
  const positives = inScope.filter((r) => r.failAt === undefined);
  const negatives = inScope.filter((r) => r.failAt !== undefined);
  const report = renderReport(results, OUT_OF_SCOPE);

  test('every rule of the corpus is either parsed or listed as out of scope with a reason', () => {
    const unknown = results.filter((r) => r.outcome === 'out-of-scope' && OUT_OF_SCOPE[r.rule.toLowerCase()] === undefined);
    expect(unknown.map((r) => r.rule)).toEqual([]);
  });

  test(`at least ${MIN_POSITIVE_RATE * 100}% of the positive cases in scope parse`, () => {
    const passed = positives.filter((r) => r.outcome === 'accepted').length;
    console.log(report.summary);
    expect(passed / positives.length).toBeGreaterThanOrEqual(MIN_POSITIVE_RATE);
  });

  test('every negative case in scope is rejected', () => {
    const accepted = negatives.filter((r) => r.outcome !== 'rejected').map((r) => `${r.rule}: ${r.input} (FailAt ${r.failAt})`);
    expect(accepted).toEqual([]);
  });

  test('no input crashes the parser with a non-OData error', () => {
    expect(inScope.filter((r) => r.outcome === 'crashed').map((r) => `${r.rule}: ${r.input}: ${r.message}`)).toEqual([]);
  });

  test('every explained failure still fails', () => {
    const failing = new Set(inScope.filter((r) => (r.failAt === undefined) !== (r.outcome === 'accepted')).map((r) => `${r.rule.toLowerCase()} ${r.input}`));
    expect(Object.keys(EXPLAINED).filter((k) => !failing.has(k))).toEqual([]);
  });

  test('conformance/abnf-known-failures.md matches the results (UPDATE_ABNF=1 rewrites it)', () => {
    if (process.env.UPDATE_ABNF === '1') {
      fs.mkdirSync(path.dirname(REPORT), { recursive: true });
      fs.writeFileSync(REPORT, report.markdown);
      return;
    }
    const stored = fs.existsSync(REPORT) ? fs.readFileSync(REPORT, 'utf8') : '';
    if (stored !== report.markdown) {
      const keys = (md: string): Set<string> => new Set(md.split('\n').filter((l) => l.startsWith('- `')));
      const before = keys(stored);
      const now = keys(report.markdown);
      const gone = [...before].filter((k) => !now.has(k));
      const added = [...now].filter((k) => !before.has(k));
      throw new Error(
        `${REPORT} is out of date; run the test with UPDATE_ABNF=1 after checking these changes.\n` +
          `No longer listed (now passing, or reason changed):\n${gone.join('\n') || '(none)'}\n` +
          `Newly listed (now failing, or reason changed):\n${added.join('\n') || '(none)'}\n` +
          (gone.length + added.length === 0 ? 'Only the summary changed.\n' : ''),
      );
    }
  });
});
