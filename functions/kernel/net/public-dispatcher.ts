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
 * Addresses are classified by `ipaddr.js` (public-address.ts): only its `unicast` range is public.
 * The undici dispatcher is loaded only by code that sends (webhook-sender.ts imports it on first use).
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import {
  BlockedAddressError,
  isPublicAddress,
  privateUrlsAllowed,
  publicOnlyLookup,
  type Resolver,
  stripBrackets,
} from './public-address.ts';

export {
  BlockedAddressError,
  checkPublicUrl,
  isPublicAddress,
  privateUrlsAllowed,
  publicOnlyLookup,
  type ResolvedAddress,
  type Resolver,
  systemResolver,
} from './public-address.ts';

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
