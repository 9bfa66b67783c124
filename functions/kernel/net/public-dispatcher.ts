/**
 * Outbound HTTP to addresses someone else chose (webhook receivers, photo imports) may reach only
 * the public internet: never the loopback, the private networks, the cloud metadata service
 * (169.254.169.254) or any other special range. Two checks, one rule:
 *
 * - `checkPublicUrl` refuses a URL when it is registered (https only, no userinfo, no IP literal or
 *   well-known local name outside the public ranges), so a bad endpoint is a 422, not a later failure;
 * - `publicDispatcher` is the undici dispatcher every such request goes through: its connector checks
 *   the literal host, and its `lookup` checks every address DNS returns, on every connection, so a
 *   name that resolved to a public address at registration and to a private one now (DNS rebinding)
 *   is refused at connect time.
 *
 * Addresses are classified by `ipaddr.js`: only its `unicast` range is public.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, type Dispatcher } from 'undici';

/** A connection refused because its address is not public (the message names the address). */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'EBLOCKEDADDRESS';
}

/** One resolved address, as `dns.lookup(…, {all: true})` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses; tests inject their own to play DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (what `net.connect` would use), every address at once. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Whether an IP address (v4 or v6, without brackets) is on the public internet. ipaddr.js names
 * every special range (loopback, private, linkLocal, carrierGradeNat, uniqueLocal, ipv4Mapped,
 * rfc6052 NAT64, 6to4, teredo, multicast, broadcast, unspecified 0.0.0.0/8, reserved…) and calls the
 * rest `unicast`. IPv4-compatible IPv6 (`::a.b.c.d`, deprecated) is not one of its ranges, so it is
 * refused here: it embeds an IPv4 address that some stacks still route.
 */
export function isPublicAddress(address: string): boolean {
  const bare = stripBrackets(address);
  if (!ipaddr.isValid(bare)) return false;
  const parsed = ipaddr.parse(bare);
  if (parsed.range() !== 'unicast') return false;
  if (parsed.kind() === 'ipv6') {
    const parts = (parsed as ipaddr.IPv6).parts;
    if (parts.slice(0, 6).every((p) => p === 0)) return false;
  }
  return true;
}

/**
 * Whether this process may reach private hosts over plain http (`LOCAL_ALLOW_PRIVATE_URLS=1`, for
 * receivers on 127.0.0.1 in the local stack). Inside Lambda the switch is refused outright: the
 * deployed service can never be pointed at its own network.
 */
export function privateUrlsAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.LOCAL_ALLOW_PRIVATE_URLS === undefined || env.LOCAL_ALLOW_PRIVATE_URLS === '') return false;
  if (env.AWS_LAMBDA_FUNCTION_NAME) {
    throw new Error('LOCAL_ALLOW_PRIVATE_URLS is a local-stack switch and is refused inside AWS Lambda');
  }
  return env.LOCAL_ALLOW_PRIVATE_URLS === '1';
}

/** Host names that always mean this machine or its local network, whatever DNS says. */
function isLocalName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.local') ||
    host.endsWith('.internal') ||
    host.endsWith('.home.arpa') ||
    !host.includes('.')
  );
}

/**
 * Why `url` may not be a target of outbound requests, or `undefined` when it may. The URL parser
 * normalises every IPv4 spelling (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short
 * `127.1`) and IPv6 literal (`[::ffff:127.0.0.1]`) first, so each is judged by its real address.
 * @param options.allowPrivate - the local switch (`privateUrlsAllowed()`): http and private hosts pass.
 */
export function checkPublicUrl(url: string, options: { allowPrivate?: boolean } = {}): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(options.allowPrivate && parsed.protocol === 'http:')) {
    return 'Must use https';
  }
  if (parsed.username || parsed.password) return 'Must not carry a user name or password';
  if (options.allowPrivate) return undefined;
  const host = stripBrackets(parsed.hostname);
  if (isIP(host)) return isPublicAddress(host) ? undefined : `The address ${host} is not a public address`;
  if (isLocalName(host)) return `The host ${host} is not a public host name`;
  return undefined;
}

/**
 * A `net.connect` lookup that resolves with `resolver` and refuses the connection when any address is
 * not public (one private answer is enough to refuse: a rebinding name may mix them).
 */
export function publicOnlyLookup(resolver: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
          return;
        }
        const blocked = addresses.find((a) => !isPublicAddress(a.address));
        if (blocked) {
          callback(
            new BlockedAddressError(
              `${hostname} resolves to ${blocked.address}, which is not a public address`,
            ),
          );
          return;
        }
        if (options?.all) callback(null, addresses);
        else callback(null, addresses[0]?.address, addresses[0]?.family);
      },
      (error: unknown) => callback(error),
    );
  }) as LookupFunction;
}

export interface PublicDispatcherOptions {
  /** @default systemResolver */
  resolver?: Resolver;
  /** The local switch: private hosts allowed. @default privateUrlsAllowed() */
  allowPrivate?: boolean;
  /** TCP + TLS connect timeout. @default 10_000 */
  connectTimeoutMs?: number;
}

/**
 * An undici dispatcher that connects only to public addresses: literal hosts are checked before the
 * socket opens, names on every DNS answer (so on every attempt). It never follows redirects (undici's
 * `request` does not; do not add a redirect interceptor without checking each hop the same way).
 */
export function publicDispatcher(options: PublicDispatcherOptions = {}): Dispatcher {
  const allowPrivate = options.allowPrivate ?? privateUrlsAllowed();
  const timeout = options.connectTimeoutMs ?? 10_000;
  const connector = buildConnector({
    timeout,
    ...(allowPrivate ? {} : { lookup: publicOnlyLookup(options.resolver) }),
  });
  return new Agent({
    connect: (connectOptions, callback) => {
      const host = stripBrackets(connectOptions.hostname);
      // net.connect skips `lookup` for an IP literal, so literals are judged here.
      if (!allowPrivate && isIP(host) && !isPublicAddress(host)) {
        callback(new BlockedAddressError(`${host} is not a public address`), null);
        return;
      }
      connector(connectOptions, callback);
    },
  });
}
