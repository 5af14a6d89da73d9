import { jest } from '@jest/globals';
import { isoNow } from '../../../src/util/iso-now.js';

describe('isoNow', () => {
  afterEach(() => jest.useRealTimers());

  it('is toISOString of the current time', () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 10, 29, 13, 45, 1, 234) });
    expect(isoNow()).toBe('2026-11-29T13:45:01.234Z');
  });

  it('follows the clock from one millisecond to the next', () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 1, 0, 0, 0, 999) });
    expect(isoNow()).toBe('2026-01-01T00:00:00.999Z');
    jest.setSystemTime(Date.UTC(2026, 0, 1, 0, 0, 1, 0));
    expect(isoNow()).toBe('2026-01-01T00:00:01.000Z');
    jest.setSystemTime(Date.UTC(2025, 11, 31, 23, 59, 59, 999));
    expect(isoNow()).toBe('2025-12-31T23:59:59.999Z');
  });
});
