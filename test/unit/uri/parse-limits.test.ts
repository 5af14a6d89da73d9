import { checkUrlLength, DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { QueryLimitError } from '../../../src/errors/odata-error.js';

test('the default limits', () => {
  expect(DEFAULT_PARSE_LIMITS).toEqual({ maxUrlLength: 32768, maxDepth: 64, maxNodes: 2000 });
});

test('an over-long URL part is a 414', () => {
  expect(() => checkUrlLength('x'.repeat(32768), DEFAULT_PARSE_LIMITS, 'query')).not.toThrow();
  try {
    checkUrlLength('x'.repeat(32769), DEFAULT_PARSE_LIMITS, 'query');
    throw new Error('accepted');
  } catch (e) {
    expect(e).toBeInstanceOf(QueryLimitError);
    expect((e as QueryLimitError).status).toBe(414);
  }
});

test('depth is counted on enter and released on leave', () => {
  const budget = new ParseBudget({ ...DEFAULT_PARSE_LIMITS, maxDepth: 2 });
  budget.enter('$filter', 0);
  budget.enter('$filter', 1);
  budget.leave();
  budget.enter('$filter', 2);
  expect(() => budget.enter('$filter', 3)).toThrow(/deeper than 2 levels \(at position 3; limits\.maxExpressionDepth in service\.json\)/);
});

test('nodes are counted for the whole parse', () => {
  const budget = new ParseBudget({ ...DEFAULT_PARSE_LIMITS, maxNodes: 3 });
  for (let i = 0; i < 3; i++) budget.node('path', i);
  expect(() => budget.node('path', 9)).toThrow(/resource path is too complex: more than 3 syntax nodes/);
});
