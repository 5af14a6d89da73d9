/**
 * Which network addresses an outbound call may reach (server-side request forgery defence): only
 * public unicast addresses, unless the operator allows private ones. Refused: unspecified, loopback,
 * private (RFC 1918, unique-local), shared (CGNAT), link-local (cloud metadata endpoints live there),
 * documentation, benchmarking, multicast and reserved ranges; IPv4-mapped and NAT64 IPv6 addresses
 * are judged by the IPv4 address they carry.
 */
import net from 'node:net';

const NON_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const NON_PUBLIC_V6: readonly [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
];

const blocked = new net.BlockList();
for (const [address, prefix] of NON_PUBLIC_V4) blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of NON_PUBLIC_V6) blocked.addSubnet(address, prefix, 'ipv6');

/** The IPv4 address carried by an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`) IPv6 address. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted?.[1] !== undefined) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] === undefined || hex[2] === undefined) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** true for an IP address an outbound call must not reach without the operator's allowance; false for public ones. */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse
  const v4 = embeddedIpv4(bare);
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  return blocked.check(bare, 'ipv6');
}
