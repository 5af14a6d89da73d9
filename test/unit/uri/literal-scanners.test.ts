import { Lexer } from '../../../src/uri/lexer.js';
import { DEFAULT_PARSE_LIMITS, ParseBudget } from '../../../src/uri/parse-limits.js';
import { failedAt, scanBinary, scanDate, scanDateTimeOffset, scanDuration, scanGuid, scanNumber, scanString, scanTimeOfDay } from '../../../src/uri/literal-scanners.js';

const lx = (text: string): Lexer => new Lexer(text, 'test', new ParseBudget(DEFAULT_PARSE_LIMITS));
const scan = (f: (l: Lexer, at: number) => number, text: string): number | string => {
  const r = f(lx(text), 0);
  return r >= 0 ? r : `fail@${failedAt(r)}`;
};

test('dates: year 0000 and negative years; month 01-12; day 01-31', () => {
  expect(scan(scanDate, '0000-01-01')).toBe(10);
  expect(scan(scanDate, '-10000-04-01')).toBe(12);
  expect(scan(scanDate, '2012-00-01')).toBe('fail@6');
  expect(scan(scanDate, '2012-12-32')).toBe('fail@9');
  expect(scan(scanDate, '00000-01-01')).toBe('fail@4');
});

test('times: hours 00-23, seconds up to 60, at most 12 fraction digits', () => {
  expect(scan(scanTimeOfDay, '23:59:60')).toBe(8);
  expect(scan(scanTimeOfDay, '23:60')).toBe('fail@3');
  expect(scan(scanTimeOfDay, '00:00:00.123456789012')).toBe(21);
  expect(scan(scanTimeOfDay, '00:00:00.1234567890123')).toBe('fail@21');
});

test('date-time offsets need Z or ±hh:mm', () => {
  expect(scan(scanDateTimeOffset, '2012-09-03T14:53+02:00')).toBe(22);
  expect(scan(scanDateTimeOffset, '2012-09-03t14:53z')).toBe(17);
  expect(scan(scanDateTimeOffset, '2012-09-03T14:53')).toBe('fail@16');
});

test('GUIDs, numbers, durations, base64url and strings', () => {
  expect(scan(scanGuid, '01234567-89ab-cdef-0123-456789abcdef')).toBe(36);
  expect(scan(scanNumber, '-0.314e1e2')).toBe(8);
  expect(scan(scanNumber, '.1')).toBe('fail@0');
  expect(scan(scanDuration, 'P1DT2H3M4.5S')).toBe(12);
  expect(scan(scanDuration, 'P1Y')).toBe(1);
  expect(scan(scanBinary, 'Zm9vYmE=')).toBe(8);
  expect(scan(scanBinary, 'Zg==')).toBe(4);
  expect(scan(scanBinary, 'Zh')).toBe('fail@1');
  expect(scan(scanString, "'a''b'x")).toBe(6);
  expect(scan(scanString, "'abc")).toBe('fail@4');
});
