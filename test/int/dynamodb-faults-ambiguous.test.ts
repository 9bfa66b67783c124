/**
 * Ambiguous commits (scripts/local/dynamodb-faults.ts): a write lands and its answer is lost. The
 * Lead a client creates with an Idempotency-Key must exist exactly once whatever became of the
 * answer: the SDK sending the transaction again below its retries (the claims of the first landing
 * refuse it), or the caller getting the error and the client retrying the request with its key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLeadClaim } from '../../functions/data/leads.ts';
import {
  type AmbiguityLevel,
  injectedDynamoFaults,
  withDynamoFaults,
} from '../../scripts/local/dynamodb-faults.ts';
import { afterIndexLag } from '../support/eventually.ts';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant();
});

/**
 * The real HTTP server, started in a fault scope: every request it serves carries the scope, whose
 * next Lead transaction (TransactWriteItems) loses its answer at `level`.
 */
async function serverLosingAnAnswer(level: AmbiguityLevel, operation: string): Promise<TestApi> {
  return withDynamoFaults({ ambiguous: { count: 1, level, operation } }, () => startTestApi(tenant.key));
}

/** POST /v1/leads as a client does: a 5xx is retried with the same Idempotency-Key, up to three times. */
async function createLeadRetrying(api: TestApi, email: string) {
  const headers = { 'Idempotency-Key': unique('idem') };
  const answers: number[] = [];
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const res = await api.call('POST', '/v1/leads', {
      headers,
      body: { name: 'Ambiguous Answer', email, assigned_agent_id: null },
    });
    answers.push(res.status);
    if (res.status < 500) return { answers, lead: res.body as { id: string; email: string } };
  }
  return { answers, lead: undefined };
}

/** The Leads of the Tenant with this email, as a list reads them once the index has caught up. */
async function leadsWithEmail(api: TestApi, email: string): Promise<string[]> {
  await afterIndexLag();
  const res = await api.call('GET', `/v1/leads?limit=100`);
  expect(res.status).toBe(200);
  return (res.body.data as { id: string; email: string | null }[])
    .filter((lead) => lead.email === email)
    .map((lead) => lead.id);
}

describe('an ambiguous commit of the Lead transaction', () => {
  const apis: TestApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
  });

  it.each([
    // The SDK sends the transaction again with the same ClientRequestToken (an idempotency token it
    // draws once a call): DynamoDB answers the retry as the transaction that landed, 201.
    ['attempt', 'ambiguous attempt TransactWriteItems', [201]],
    // The request answers 500 (its Idempotency-Key is released); the client's retry finds the Lead.
    ['call', 'ambiguous TransactWriteItems', [500, 200]],
  ] as const)('lost per %s: one Lead, answered', async (level, injected, expectedAnswers) => {
    // Prepare
    const api = await serverLosingAnAnswer(level, 'TransactWriteItems');
    apis.push(api);
    const email = `${unique('ambiguous')}@example.com`;
    const faultsBefore = injectedDynamoFaults().length;
    // Act
    const { answers, lead } = await createLeadRetrying(api, email);
    // Assess: the answer was lost; then answered, with the one Lead that holds the email, listed once.
    expect(injectedDynamoFaults().slice(faultsBefore)).toContain(injected);
    expect(answers).toEqual(expectedAnswers);
    expect(lead?.email).toBe(email);
    expect(await findLeadClaim(tenant.tenantId, 'lead-email', email)).toBe(lead?.id);
    expect(await leadsWithEmail(api, email)).toEqual([lead?.id]);
  });
});

describe('an ambiguous commit of the Idempotency-Key claim', () => {
  it.each([
    // The SDK sends the conditional put again, which fails against the claim it made itself.
    ['attempt', 'ambiguous attempt PutItem'],
    // The error reaches the request, whose claim landed all the same.
    ['call', 'ambiguous PutItem'],
  ] as const)(
    'lost per %s: the request knows the claim is its own and creates the Lead',
    async (level, injected) => {
      // Prepare: the request's first PutItem is the claim of its Idempotency-Key (a conditional put).
      const api = await serverLosingAnAnswer(level, 'PutItem');
      const email = `${unique('ambiguous-key')}@example.com`;
      const faultsBefore = injectedDynamoFaults().length;
      // Act
      const { answers, lead } = await createLeadRetrying(api, email);
      const listed = await leadsWithEmail(api, email);
      await api.close();
      // Assess: created at the first request (not 409 "still being processed" for its own claim).
      expect(injectedDynamoFaults().slice(faultsBefore)).toContain(injected);
      expect(answers).toEqual([201]);
      expect(lead?.email).toBe(email);
      expect(await findLeadClaim(tenant.tenantId, 'lead-email', email)).toBe(lead?.id);
      expect(listed).toEqual([lead?.id]);
    },
  );
});
