/** src/events/address-policy.ts: which addresses an outbound call may reach without the operator's allowance. */
import { isNonPublicAddress } from '../../../src/events/address-policy.js';

test.each([
  '127.0.0.1', '127.255.0.9', '0.0.0.0', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1', '169.254.169.254',
  '100.64.0.1', '192.0.2.10', '198.18.0.1', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::1', 'ff02::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.1.2.3', '64:ff9b::10.0.0.1', '2001:db8::1', '[::1]', 'fe80::1%eth0', 'not-an-address', '',
])('%s is refused', (address) => {
  expect(isNonPublicAddress(address)).toBe(true);
});

test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '172.15.255.255', '192.169.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
  '%s is public',
  (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  },
);
