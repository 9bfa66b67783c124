import ipaddr from 'ipaddr.js';

/**
 * The visitor a site budget counts (interface §8, per visitor IP address). IPv4 addresses count one
 * by one; an IPv6 visitor counts by its /64, since one home or phone holds a whole /64 and could
 * otherwise step through addresses to dodge the budget. IPv4-mapped IPv6 counts as the IPv4.
 * Undefined for a value that is not an address.
 */
export function visitorBucket(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}

/**
 * The viewer's address from CloudFront's `CloudFront-Viewer-Address` header (`ip:port`; an IPv6
 * address has colons of its own, so the port is after the last one).
 */
export function viewerAddressIp(header: string): string | undefined {
  const cut = header.lastIndexOf(':');
  if (cut <= 0) return undefined;
  const ip = header.slice(0, cut).replace(/^\[|\]$/g, '');
  return ipaddr.isValid(ip) ? ip : undefined;
}
