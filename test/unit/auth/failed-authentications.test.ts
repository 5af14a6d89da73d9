/**
 * The failed-authentication limit counts per address and per (address, credential), never holds a
 * valid credential back, and keeps a bounded number of counters.
 */
import { FailedAuthentications } from '../../../src/auth/failed-authentications.js';

test('a credential that failed max times from an address is blocked there; the address blocks only failures', () => {
  let now = 1_000_000;
  const f = new FailedAuthentications(60_000, 3, 100, () => now);
  expect(f.anyRecent()).toBe(false);
  expect([f.failed('10.0.0.1', 'Bearer a'), f.failed('10.0.0.1', 'Bearer a'), f.failed('10.0.0.1', 'Bearer a')]).toEqual([undefined, undefined, undefined]);
  expect(f.anyRecent()).toBe(true);
  expect(f.credentialBlocked('10.0.0.1', 'Bearer a')).toBe(60);
  // Another credential from the same address is checked; failing, it gets the address's wait.
  expect(f.credentialBlocked('10.0.0.1', 'Bearer b')).toBeUndefined();
  expect(f.failed('10.0.0.1', 'Bearer b')).toBe(60);
  // Other addresses are not affected, nor is the same credential from elsewhere.
  expect(f.credentialBlocked('10.0.0.2', 'Bearer a')).toBeUndefined();
  now += 30_000;
  expect(f.credentialBlocked('10.0.0.1', 'Bearer a')).toBe(30);
  now += 30_001;
  expect(f.credentialBlocked('10.0.0.1', 'Bearer a')).toBeUndefined();
  expect(f.anyRecent()).toBe(false);
});

test('IPv6 addresses count by their /56 subnet', () => {
  const f = new FailedAuthentications(60_000, 2);
  f.failed('2001:db8:0:1::1', 'x');
  f.failed('2001:db8:0:2::9', 'y');
  expect(f.failed('2001:db8:0:3::7', 'z')).toBeGreaterThan(0);
});

test('the counters stay bounded while an attacker varies credentials; the address still counts', () => {
  const f = new FailedAuthentications(60_000, 50, 64);
  let wait: number | undefined;
  for (let i = 0; i < 1000; i++) wait = f.failed('10.0.0.9', `Bearer guess-${i}`) ?? wait;
  expect(wait).toBeGreaterThan(0);
  expect((f as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(64);
});
