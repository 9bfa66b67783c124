import ipaddr from 'ipaddr.js';

/** The prefix one IPv6 visitor counts by: a home or a phone holds a whole /64. */
export const VISITOR_IPV6_PREFIX = 64;
/**
 * The prefix an IPv6 visitor's network counts by: the site a provider delegates (a /48 at most, a
 * /56 to many homes), inside which one household or office holds many /64s.
 */
export const NETWORK_IPV6_PREFIX = 48;

/** The buckets a site visitor's budgets count. */
export interface SiteVisitor {
  /** One visitor: an IPv4 address, or an IPv6 /64 (`2001:db8:aa:1101::/64`). */
  visitor: string;
  /** IPv6 only: the visitor's /48 (`2001:db8:aa::/48`), budgeted as a whole before the site budget. */
  network?: string;
}

function prefixOf(address: ipaddr.IPv6, bits: number): string {
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`).toString()}/${bits}`;
}

/**
 * The buckets a site visitor counts in (the site's budget per visitor IP address). IPv4 addresses
 * count one by one. An IPv6 visitor counts by its /64, since one home or phone holds a whole /64
 * and could otherwise step through addresses to dodge the budget; and its /48 counts too, since a
 * household or office given a /56 (or a /48) holds 256 /64s or more, each with a visitor budget of
 * its own, enough together to spend the Tenant's whole site budget. IPv4-mapped IPv6 counts as the
 * IPv4. Undefined for a value that is not an address.
 */
export function siteVisitor(address: string): SiteVisitor | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.kind() === 'ipv4') return { visitor: parsed.toString() };
  const ipv6 = parsed as ipaddr.IPv6;
  return { visitor: prefixOf(ipv6, VISITOR_IPV6_PREFIX), network: prefixOf(ipv6, NETWORK_IPV6_PREFIX) };
}

/** The one bucket a visitor's own budgets count ({@link siteVisitor}'s `visitor`). */
export function visitorBucket(address: string): string | undefined {
  return siteVisitor(address)?.visitor;
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
