import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runAdminCli } from '../support/cli.ts';
import { createTestTenant, type TestTenant } from '../support/factories.ts';

const adminCli = (...args: string[]) => runAdminCli({ ...process.env, LOG_LEVEL: 'ERROR' }, ...args);
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await createTestTenant();
});

describe('admin CLI: publishable keys and the theme', () => {
  it('site-key create → {id, key}; update → {id, origins}; revoke → {id, revoked_at}; key list shows both kinds', async () => {
    const created = await adminCli(
      'site-key',
      'create',
      '--tenant',
      tenant.slug,
      '--origins',
      'https://a.example,https://*.a.example',
      '--name',
      'main site',
    );
    expect(created.code, created.stderr).toBe(0);
    const { id, key } = JSON.parse(created.stdout);
    expect(key).toMatch(/^svc_pk_/);

    const updated = await adminCli(
      'site-key',
      'update',
      '--tenant',
      tenant.slug,
      '--id',
      id,
      '--origins',
      'https://b.example,http://localhost',
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toEqual({ id, origins: ['https://b.example', 'http://localhost'] });

    const list = await adminCli('key', 'list', '--tenant', tenant.slug);
    expect(list.code, list.stderr).toBe(0);
    const keys = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(keys.find((k) => k.id === id)).toEqual({
      id,
      name: 'main site',
      kind: 'publishable',
      scopes: [],
      origins: ['https://b.example', 'http://localhost'],
      created_at: expect.any(String),
      expires_at: null,
      revoked_at: null,
      exposed_at: null,
    });
    expect(keys.find((k) => k.id === tenant.keyId)).toMatchObject({ kind: 'secret', origins: [] });
    expect(list.stdout).not.toContain(key);

    const revoked = await adminCli('site-key', 'revoke', '--tenant', tenant.slug, '--id', id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ id, revoked_at: expect.any(String) });
  });

  it.each([
    ['a path', 'https://a.example/shop'],
    ['http other than localhost', 'http://a.example'],
    ['*. in the wrong place', 'https://a.*.example'],
    ['a bare wildcard', 'https://*.example'],
    ['no scheme', 'a.example'],
  ])('one bad origin (%s) refuses the whole create and update', async (_why, bad) => {
    const res = await adminCli(
      'site-key',
      'create',
      '--tenant',
      tenant.slug,
      '--origins',
      `https://ok.example,${bad}`,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('--origins');
    expect(res.stdout).toBe('');
  });

  it('theme set validates the file (unknown fields refused) and returns what GET /v1/theme shows', async () => {
    const file = join(tmpdir(), `theme-${tenant.slug}.json`);
    writeFileSync(
      file,
      JSON.stringify({ colors: { primary: '#112233' }, corner_style: 'pill', show_powered_by: false }),
    );
    const set = await adminCli('theme', 'set', '--tenant', tenant.slug, '--file', file);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      colors: { primary: '#112233', accent: expect.any(String) },
      corner_style: 'pill',
      show_powered_by: false,
    });
    writeFileSync(file, JSON.stringify({ colors: { primary: 'red' }, sparkles: true }));
    const bad = await adminCli('theme', 'set', '--tenant', tenant.slug, '--file', file);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/colors\.primary|sparkles/);
  });
});
