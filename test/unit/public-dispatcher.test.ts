import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  BlockedAddressError,
  checkPublicUrl,
  isPublicAddress,
  privateUrlsAllowed,
  publicDispatcher,
  publicOnlyLookup,
  type Resolver,
} from '../../functions/kernel/net/public-dispatcher.ts';

/** A resolver playing DNS: each name answers its list of addresses, one list per lookup in turn. */
function fakeDns(answers: Record<string, string[][]>): Resolver {
  const calls = new Map<string, number>();
  return async (hostname) => {
    const turns = answers[hostname];
    if (!turns) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const turn = calls.get(hostname) ?? 0;
    calls.set(hostname, turn + 1);
    const addresses = turns[Math.min(turn, turns.length - 1)] ?? [];
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

function lookupOnce(resolver: Resolver, hostname: string): Promise<{ address?: unknown; error?: Error }> {
  const lookup = publicOnlyLookup(resolver) as unknown as (
    h: string,
    o: { all?: boolean },
    cb: (error: Error | null, address?: unknown) => void,
  ) => void;
  return new Promise((resolve) => {
    lookup(hostname, { all: true }, (error, address) => resolve(error ? { error } : { address }));
  });
}

/** Every form below is a non-public target; each is refused at registration and at connect time. */
const LITERAL_FORMS: [string, string][] = [
  ['IPv4 loopback', 'https://127.0.0.1/hook'],
  ['decimal IPv4', 'https://2130706433/hook'],
  ['octal IPv4', 'https://0177.0.0.1/hook'],
  ['hex IPv4', 'https://0x7f000001/hook'],
  ['hex dotted IPv4', 'https://0x7f.0.0.1/hook'],
  ['short IPv4', 'https://127.1/hook'],
  ['IPv6 loopback', 'https://[::1]/hook'],
  ['IPv4-mapped IPv6', 'https://[::ffff:127.0.0.1]/hook'],
  ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
  ['IPv4-compatible IPv6', 'https://[::127.0.0.1]/hook'],
  ['NAT64 of a private address', 'https://[64:ff9b::a00:1]/hook'],
  ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data/'],
  ['unspecified', 'https://0.0.0.0/hook'],
  ['this network 0.0.0.0/8', 'https://0.1.2.3/hook'],
  ['CGNAT', 'https://100.64.0.1/hook'],
  ['private 10/8', 'https://10.1.2.3/hook'],
  ['private 172.16/12', 'https://172.16.0.1/hook'],
  ['private 192.168/16', 'https://192.168.1.1/hook'],
  ['unique-local IPv6', 'https://[fd00::1]/hook'],
  ['link-local IPv6', 'https://[fe80::1]/hook'],
  ['multicast', 'https://224.0.0.1/hook'],
  ['broadcast', 'https://255.255.255.255/hook'],
  ['reserved', 'https://240.0.0.1/hook'],
  ['documentation IPv6 (reserved)', 'https://[2001:db8::1]/hook'],
];

describe('SSRF: public addresses only', () => {
  it.each(LITERAL_FORMS)('refuses %s at registration (%s)', (_name, url) => {
    expect(checkPublicUrl(url)).toMatch(/not a public address/);
  });

  it.each(LITERAL_FORMS)('refuses %s at connect time (%s)', async (_name, url) => {
    const dispatcher = publicDispatcher({ resolver: fakeDns({}), allowPrivate: false });
    const error = await request(url, { method: 'POST', body: '{}', dispatcher }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(BlockedAddressError);
    await dispatcher.close();
  });

  it('refuses local names, http, and user info at registration', () => {
    expect(checkPublicUrl('https://localhost:8443/x')).toMatch(/not a public host name/);
    expect(checkPublicUrl('https://api.localhost/x')).toMatch(/not a public host name/);
    expect(checkPublicUrl('https://metadata.google.internal/x')).toMatch(/not a public host name/);
    expect(checkPublicUrl('http://hooks.example.com/x')).toBe('Must use https');
    expect(checkPublicUrl('https://user:pw@hooks.example.com/x')).toMatch(/user name or password/);
    expect(checkPublicUrl('not a url')).toBe('Must be an absolute URL');
  });

  it('refuses a host name that resolves to a private address', async () => {
    const dns = fakeDns({ 'internal.example.com': [['10.0.0.7']] });
    const { error } = await lookupOnce(dns, 'internal.example.com');
    expect(error).toBeInstanceOf(BlockedAddressError);
    expect(error?.message).toContain('10.0.0.7');
  });

  it('refuses a name whose answers mix a public and a private address', async () => {
    const dns = fakeDns({ 'mixed.example.com': [['93.184.215.14', '127.0.0.1']] });
    expect((await lookupOnce(dns, 'mixed.example.com')).error).toBeInstanceOf(BlockedAddressError);
  });

  it('checks every connection: a public name that re-resolves to a private address is refused (DNS rebinding)', async () => {
    const dns = fakeDns({ 'rebind.example.com': [['93.184.215.14'], ['169.254.169.254']] });
    const first = await lookupOnce(dns, 'rebind.example.com');
    expect(first.error).toBeUndefined();
    expect(first.address).toEqual([{ address: '93.184.215.14', family: 4 }]);
    const second = await lookupOnce(dns, 'rebind.example.com');
    expect(second.error).toBeInstanceOf(BlockedAddressError);
  });

  it('refuses the rebinding name through the dispatcher itself', async () => {
    const dispatcher = publicDispatcher({ resolver: fakeDns({ 'rebind.example.com': [['192.168.0.10']] }) });
    const error = await request('https://rebind.example.com/hook', { dispatcher }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(BlockedAddressError);
    await dispatcher.close();
  });

  it('allows public addresses and names', async () => {
    expect(isPublicAddress('93.184.215.14')).toBe(true);
    expect(isPublicAddress('2606:4700:4700::1111')).toBe(true);
    expect(checkPublicUrl('https://hooks.example.com/in')).toBeUndefined();
    expect(checkPublicUrl('https://93.184.215.14/in')).toBeUndefined();
    const dns = fakeDns({ 'hooks.example.com': [['93.184.215.14', '2606:4700:4700::1111']] });
    const { address, error } = await lookupOnce(dns, 'hooks.example.com');
    expect(error).toBeUndefined();
    expect(address).toHaveLength(2);
  });

  it('LOCAL_ALLOW_PRIVATE_URLS allows http and private hosts locally, and is refused inside Lambda', () => {
    expect(privateUrlsAllowed({})).toBe(false);
    expect(privateUrlsAllowed({ LOCAL_ALLOW_PRIVATE_URLS: '1' })).toBe(true);
    expect(checkPublicUrl('http://127.0.0.1:9000/hook', { allowPrivate: true })).toBeUndefined();
    expect(() =>
      privateUrlsAllowed({ LOCAL_ALLOW_PRIVATE_URLS: '1', AWS_LAMBDA_FUNCTION_NAME: 'webhook-delivery' }),
    ).toThrow(/refused inside AWS Lambda/);
  });
});
