import { describe, expect, it } from 'vitest';
import { botCheckRefusal } from '../../functions/domain/bot-check.ts';
import { hostnameAllowed, originAllowed, parseOrigins } from '../../functions/domain/origins.ts';
import { viewerAddressIp, visitorBucket } from '../../functions/domain/visitor.ts';

describe('allowed origins (the origin rules of docs/site-api.md)', () => {
  it('accepts https hosts, https://*.host and http://localhost, normalised', () => {
    expect(parseOrigins('https://A.example, https://*.a.example,http://localhost:3000')).toEqual({
      origins: ['https://a.example', 'https://*.a.example', 'http://localhost'],
      problems: [],
    });
  });

  it.each([
    'https://a.example/',
    'https://a.example/shop',
    'http://a.example',
    'https://a.*.example',
    'https://*a.example',
    'https://*.example',
    'https://*.*.a.example',
    'a.example',
    'https://a.example?x=1',
    'https://user@a.example',
    'http://127.0.0.1',
  ])('refuses %s, and with it the whole list', (bad) => {
    const parsed = parseOrigins(`https://ok.example,${bad}`);
    expect(parsed.origins).toEqual([]);
    expect(parsed.problems.length).toBeGreaterThan(0);
  });

  it('matches a subdomain at any depth to *.host, never the bare host; localhost at any port; never 127.0.0.1', () => {
    const allowed = ['https://*.a.example', 'https://b.example', 'http://localhost'];
    expect(originAllowed(allowed, 'https://www.a.example')).toBe(true);
    expect(originAllowed(allowed, 'https://x.y.a.example')).toBe(true);
    expect(originAllowed(allowed, 'https://a.example')).toBe(false);
    expect(originAllowed(allowed, 'https://evila.example')).toBe(false);
    expect(originAllowed(allowed, 'https://b.example')).toBe(true);
    expect(originAllowed(allowed, 'https://b.example:8443')).toBe(false);
    expect(originAllowed(allowed, 'http://b.example')).toBe(false);
    expect(originAllowed(allowed, 'http://localhost:5173')).toBe(true);
    expect(originAllowed(allowed, 'https://localhost')).toBe(false);
    expect(originAllowed(allowed, 'http://127.0.0.1:5173')).toBe(false);
    expect(originAllowed(allowed, 'null')).toBe(false);
  });
});

describe('visitors of the site budgets', () => {
  it('counts IPv4 one by one, IPv6 by its /64, IPv4-mapped IPv6 as IPv4', () => {
    expect(visitorBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(visitorBucket('2001:db8:1:2:aaaa::1')).toBe(visitorBucket('2001:db8:1:2:bbbb::9'));
    expect(visitorBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(visitorBucket('not an ip')).toBeUndefined();
  });

  it("reads CloudFront's viewer address (ip:port, IPv6 with colons of its own)", () => {
    expect(viewerAddressIp('203.0.113.7:46532')).toBe('203.0.113.7');
    expect(viewerAddressIp('2001:db8::1:46532')).toBe('2001:db8::1');
    expect(viewerAddressIp('garbage')).toBeUndefined();
  });
});

describe('the Turnstile answer of an Inquiry', () => {
  const origins = ['https://www.agency.example', 'https://*.shop.example', 'http://localhost'];

  it('admits a token solved on a host of the allowed origins, for the inquiry form or no action', () => {
    expect(hostnameAllowed(origins, 'www.agency.example')).toBe(true);
    expect(hostnameAllowed(origins, 'a.shop.example')).toBe(true);
    expect(hostnameAllowed(origins, 'localhost')).toBe(true);
    expect(
      botCheckRefusal({ success: true, hostname: 'www.agency.example', action: 'inquiry' }, origins),
    ).toBe(undefined);
    expect(botCheckRefusal({ success: true, hostname: 'www.agency.example', action: '' }, origins)).toBe(
      undefined,
    );
    expect(botCheckRefusal({ success: true }, origins)).toBe(undefined);
  });

  it('refuses a failed token, another host, and another form', () => {
    expect(hostnameAllowed(origins, 'shop.example')).toBe(false);
    expect(hostnameAllowed(origins, 'evil.example')).toBe(false);
    expect(hostnameAllowed(['https://www.agency.example'], 'localhost')).toBe(false);
    expect(botCheckRefusal({ success: false }, origins)).toMatch(/bot check failed/);
    expect(botCheckRefusal({ success: true, hostname: 'evil.example', action: 'inquiry' }, origins)).toMatch(
      /host this key does not allow/,
    );
    expect(
      botCheckRefusal({ success: true, hostname: 'www.agency.example', action: 'login' }, origins),
    ).toMatch(/another form/);
  });
});
