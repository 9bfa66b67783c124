import { describe, expect, it } from 'vitest';
import { findAgentByEmail, getAgent } from '../../functions/data/agents.ts';
import { UniqueClaim } from '../../functions/data/entities/unique-claim.ts';
import { getTenant, getTenantBySlug } from '../../functions/data/tenants.ts';
import { ConflictError, NotFoundError } from '../../functions/kernel/errors.ts';
import { createAgent } from '../../functions/services/agents.ts';
import {
  AdminInputError,
  createTenantFromAdmin,
  parseLanguages,
  presentTenant,
  updateTenantFromAdmin,
} from '../../functions/services/tenants.ts';
import { unique } from '../support/factories.ts';

/** The error a call rejects with (undefined if it resolves), caught at once so none goes unhandled. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('tenants', () => {
  it('creates a tenant findable by id and slug, with defaults', async () => {
    // Prepare
    const slug = unique('agency');
    // Act
    const tenant = await createTenantFromAdmin({ slug, name: '  Costa Homes  ' });
    // Assess
    expect(tenant).toMatchObject({
      slug,
      name: 'Costa Homes',
      languages: ['en'],
      subscription: 'active',
      suspended: false,
    });
    expect(await getTenant(tenant.tenantId)).toEqual(tenant);
    expect(await getTenantBySlug(slug)).toEqual(tenant);
  });

  it('refuses a taken slug with ConflictError and keeps the first tenant', async () => {
    // Prepare
    const slug = unique('agency');
    const first = await createTenantFromAdmin({ slug, name: 'First' });
    // Act
    const error = await failure(createTenantFromAdmin({ slug, name: 'Second' }));
    // Assess
    expect(error).toBeInstanceOf(ConflictError);
    expect(await getTenantBySlug(slug)).toMatchObject({ tenantId: first.tenantId, name: 'First' });
  });

  it('lets exactly one of several concurrent creates with one slug win', async () => {
    // Prepare
    const slug = unique('race');
    // Act
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => failure(createTenantFromAdmin({ slug, name: `Racer ${i}` }))),
    );
    // Assess
    expect(outcomes.filter((o) => o === undefined)).toHaveLength(1);
    expect(outcomes.filter((o) => o instanceof ConflictError)).toHaveLength(4);
    const claim = (await UniqueClaim.get({ scope: 'global', kind: 'tenant-slug', value: slug }).go()).data;
    expect(claim?.ownerId).toBe((await getTenantBySlug(slug))?.tenantId);
  });

  it('refuses malformed input with AdminInputError', async () => {
    // Act
    const badSlug = await failure(createTenantFromAdmin({ slug: 'Not A Slug', name: 'X' }));
    const blankName = await failure(createTenantFromAdmin({ slug: unique('ok'), name: '   ' }));
    const badSite = await failure(
      createTenantFromAdmin({ slug: unique('ok'), name: 'X', website: 'ftp://x' }),
    );
    // Assess
    for (const error of [badSlug, blankName, badSite]) expect(error).toBeInstanceOf(AdminInputError);
    expect(() => parseLanguages('en,EN_gb')).toThrow(AdminInputError);
    expect(parseLanguages('en, es,en,pt-BR')).toEqual(['en', 'es', 'pt-BR']);
  });

  it('updates only the given fields and answers NotFoundError for an unknown slug', async () => {
    // Prepare
    const slug = unique('agency');
    const tenant = await createTenantFromAdmin({ slug, name: 'Before', languages: ['es', 'en'] });
    // Act
    const updated = await updateTenantFromAdmin(slug, { suspended: true, rateLimitPerMinute: 30 });
    const missing = await failure(updateTenantFromAdmin(unique('nobody'), { suspended: true }));
    // Assess
    expect(presentTenant(updated)).toMatchObject({
      id: tenant.tenantId,
      slug,
      name: 'Before',
      languages: ['es', 'en'],
      subscription: 'active',
      suspended: true,
      rate_limit_per_minute: 30,
      created_at: tenant.createdAt,
    });
    expect(updated.updatedAt >= tenant.updatedAt).toBe(true);
    expect(await getTenant(tenant.tenantId)).toEqual(updated);
    expect(missing).toBeInstanceOf(NotFoundError);
  });
});

describe('agents', () => {
  it('refuses a duplicate email in one tenant, whatever its case, but not in another tenant', async () => {
    // Prepare
    const tenant = await createTenantFromAdmin({ slug: unique('agency'), name: 'One' });
    const other = await createTenantFromAdmin({ slug: unique('agency'), name: 'Two' });
    const email = `${unique('ana')}@example.com`;
    const first = await createAgent({ tenantId: tenant.tenantId, name: 'Ana', email });
    // Act
    const duplicate = await failure(
      createAgent({ tenantId: tenant.tenantId, name: 'Ana Again', email: email.toUpperCase() }),
    );
    const elsewhere = await createAgent({ tenantId: other.tenantId, name: 'Ana', email });
    // Assess
    expect(duplicate).toBeInstanceOf(ConflictError);
    expect(await findAgentByEmail(tenant.tenantId, email)).toEqual(first);
    expect(elsewhere).toMatchObject({ tenantId: other.tenantId, email, slug: 'ana' });
    const claim = (
      await UniqueClaim.get({ scope: `t#${tenant.tenantId}`, kind: 'agent-slug', value: 'ana-again' }).go()
    ).data;
    expect(claim).toBeNull();
  });

  it('suffixes the slug of a repeated name within a tenant', async () => {
    // Prepare
    const tenant = await createTenantFromAdmin({ slug: unique('agency'), name: 'Team' });
    const make = (n: number) =>
      createAgent({
        tenantId: tenant.tenantId,
        name: 'José García',
        email: `jose${n}-${unique()}@example.com`,
      });
    // Act
    const first = await make(1);
    const second = await make(2);
    const third = await make(3);
    // Assess
    expect([first.slug, second.slug, third.slug]).toEqual(['jose-garcia', 'jose-garcia-2', 'jose-garcia-3']);
    expect(await getAgent(tenant.tenantId, third.id)).toMatchObject({
      name: 'José García',
      isActive: true,
      isAdmin: false,
    });
  });

  it('normalises the email and refuses a malformed one', async () => {
    // Prepare
    const tenant = await createTenantFromAdmin({ slug: unique('agency'), name: 'Team' });
    // Act
    const agent = await createAgent({
      tenantId: tenant.tenantId,
      name: 'Boss',
      email: '  Boss@Example.COM ',
      isAdmin: true,
    });
    const bad = await failure(createAgent({ tenantId: tenant.tenantId, name: 'Bad', email: 'not-an-email' }));
    // Assess
    expect(agent).toMatchObject({ email: 'boss@example.com', isAdmin: true });
    expect(bad).toBeInstanceOf(AdminInputError);
  });
});
