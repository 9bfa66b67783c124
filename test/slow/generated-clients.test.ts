/**
 * Clients generated from the document `npm start` serves (/docs/openapi.json), as
 * docs/getting-started.md shows them, by two generators: openapi-typescript (types) with
 * openapi-fetch, and @hey-api/openapi-ts (a model per component, and a function per operation). Each
 * is generated into a folder of its own, type-checked strictly with its program (`tsc --noEmit`),
 * and the program is run against the stack: it creates a listing, pages every listing, ingests a
 * Lead and reads its event from the log, every value typed by the generated models (Property,
 * PropertyPage, LeadIngestIn, Lead, Event: the component names of the document).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../support/local-stack.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/** What both programs answer: what they made, and what they read back through their client. */
interface Outcome {
  propertyId: string;
  price: string;
  pagedIds: string[];
  pages: number;
  leadId: string;
  eventType: string;
  eventLeadName: string;
}

/** The program an integrator writes with openapi-typescript's types and openapi-fetch. */
const OPENAPI_FETCH_PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Property = components['schemas']['Property'];
type Lead = components['schemas']['Lead'];
type Event = components['schemas']['Event'];
type LeadIngestIn = components['schemas']['LeadIngestIn'];

export async function flow(baseUrl: string, key: string, email: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const created = await api.POST('/v1/properties', {
    body: { title: 'Generated client villa', price: '450000', currency: 'EUR', ai_enrichment: false },
  });
  if (created.error) throw new Error(\`create: \${created.response.status} \${JSON.stringify(created.error)}\`);
  const property: Property = created.data;
  const pagedIds: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await api.GET('/v1/properties', { params: { query: { limit: 2, ...(cursor ? { cursor } : {}) } } });
    if (page.error) throw new Error(\`page: \${page.response.status}\`);
    pages += 1;
    pagedIds.push(...page.data.data.map((p: Property) => p.id));
    cursor = page.data.next_cursor ?? undefined;
  } while (cursor);
  const ingest: LeadIngestIn = { source: 'generated-client', type: 'inquiry', person: { name: 'Gen Client', email } };
  const ingested = await api.POST('/v1/leads:ingest', { body: ingest });
  if (ingested.error) throw new Error(\`ingest: \${ingested.response.status} \${JSON.stringify(ingested.error)}\`);
  const lead: Lead = ingested.data.lead;
  for (let i = 0; i < 600; i++) {
    const events = await api.GET('/v1/events', { params: { query: { type: 'lead.created', limit: 200 } } });
    if (events.error) throw new Error(\`events: \${events.response.status}\`);
    const event: Event | undefined = events.data.data.find((e: Event) => e.type === 'lead.created' && e.data.id === lead.id);
    // Narrowed by type: data is the Lead, typed as such.
    if (event?.type === 'lead.created') {
      const eventLead: Lead = event.data;
      return { propertyId: property.id, price: property.price, pagedIds, pages, leadId: lead.id, eventType: event.type, eventLeadName: eventLead.name };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no lead.created event for the Lead');
}
`;

/** The same program with @hey-api/openapi-ts's models (types.gen.ts) and functions (sdk.gen.ts). */
const HEY_API_PROGRAM = `import { client } from './client.gen.js';
import { createProperty, ingestLead, listEvents, listProperties } from './sdk.gen.js';
import type { Event, Lead, LeadIngestIn, Property, PropertyCreate, PropertyPage } from './types.gen.js';

export async function flow(baseUrl: string, key: string, email: string) {
  client.setConfig({ baseUrl, auth: key });
  const body: PropertyCreate = { title: 'Generated client villa', price: '450000', currency: 'EUR', ai_enrichment: false };
  const created = await createProperty({ body });
  if (created.error) throw new Error(\`create: \${created.response.status} \${JSON.stringify(created.error)}\`);
  const property: Property = created.data;
  const pagedIds: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await listProperties({ query: { limit: 2, ...(cursor ? { cursor } : {}) } });
    if (page.error) throw new Error(\`page: \${page.response.status}\`);
    const data: PropertyPage = page.data;
    pages += 1;
    pagedIds.push(...data.data.map((p) => p.id));
    cursor = data.next_cursor ?? undefined;
  } while (cursor);
  const ingest: LeadIngestIn = { source: 'generated-client', type: 'inquiry', person: { name: 'Gen Client', email } };
  const ingested = await ingestLead({ body: ingest });
  if (ingested.error) throw new Error(\`ingest: \${ingested.response.status} \${JSON.stringify(ingested.error)}\`);
  const lead: Lead = ingested.data.lead;
  for (let i = 0; i < 600; i++) {
    const events = await listEvents({ query: { type: 'lead.created', limit: 200 } });
    if (events.error) throw new Error(\`events: \${events.response.status}\`);
    const event: Event | undefined = events.data.data.find((e) => e.type === 'lead.created' && e.data.id === lead.id);
    if (event?.type === 'lead.created') {
      const eventLead: Lead = event.data;
      return { propertyId: property.id, price: property.price, pagedIds, pages, leadId: lead.id, eventType: event.type, eventLeadName: eventLead.name };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no lead.created event for the Lead');
}
`;

let stack: LocalStack;
let key: string;
let documentUrl: string;
let dir: string;

beforeAll(async () => {
  // Without the demo catalogue: the listings to page are this file's, not minutes of samples.
  stack = await startLocalStack({ env: { DEMO_CATALOGUE: 'off' } });
  key = /demo-full-access\s+(svc_live_[A-Za-z0-9_-]+)/.exec(stack.output())?.[1] as string;
  expect(key, stack.output()).toBeDefined();
  documentUrl = `${stack.url}/docs/openapi.json`;
  // Inside the project (not node_modules) so that openapi-fetch resolves and vitest transforms it.
  dir = await mkdtemp(resolve(ROOT, 'test/.generated-clients-'));
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}, 30_000);

/** `tsc --noEmit --strict` over a program and what it imports, as an integrator's build runs it. */
async function typeCheck(file: string): Promise<void> {
  const flags = ['--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext'];
  try {
    await run(
      resolve(ROOT, 'node_modules/.bin/tsc'),
      ['--noEmit', ...flags, '--moduleResolution', 'nodenext', file],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    // tsc writes its errors to stdout: show them, not only "Command failed".
    throw new Error(`tsc refused ${file}:\n${(error as { stdout?: string }).stdout ?? error}`);
  }
}

async function runFlow(file: string): Promise<Outcome> {
  const { flow } = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as {
    flow: (baseUrl: string, key: string, email: string) => Promise<Outcome>;
  };
  return flow(stack.url, key, `gen-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`);
}

function expectFlow(outcome: Outcome) {
  expect(outcome.price).toBe('450000');
  expect(outcome.pagedIds).toContain(outcome.propertyId);
  expect(new Set(outcome.pagedIds).size).toBe(outcome.pagedIds.length);
  expect(outcome.eventType).toBe('lead.created');
  expect(outcome.eventLeadName).toBe('Gen Client');
}

describe('clients generated from the served document', () => {
  it('the stack serves docs/openapi.json at /docs/openapi.json', async () => {
    const served = await fetch(documentUrl);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(
      JSON.parse(await readFile(resolve(ROOT, 'docs/openapi.json'), 'utf8')),
    );
  });

  it('openapi-typescript with openapi-fetch: compiles and runs the flow', async () => {
    // Prepare: types generated from the URL, as docs/getting-started.md shows
    const out = resolve(dir, 'openapi-fetch');
    await run(resolve(ROOT, 'node_modules/.bin/openapi-typescript'), [documentUrl, '-o', `${out}/api.d.ts`], {
      cwd: ROOT,
    });
    await writeFile(`${out}/flow.ts`, OPENAPI_FETCH_PROGRAM);
    // Act
    await typeCheck(`${out}/flow.ts`);
    const outcome = await runFlow(`${out}/flow.ts`);
    // Assess
    expectFlow(outcome);
  }, 240_000);

  it('@hey-api/openapi-ts: one model per component, compiles and runs the flow', async () => {
    // Prepare
    const out = resolve(dir, 'hey-api');
    await run(resolve(ROOT, 'node_modules/.bin/openapi-ts'), ['-i', documentUrl, '-o', out], { cwd: ROOT });
    await writeFile(`${out}/flow.ts`, HEY_API_PROGRAM);
    // Act
    const models = await readFile(`${out}/types.gen.ts`, 'utf8');
    await typeCheck(`${out}/flow.ts`);
    const outcome = await runFlow(`${out}/flow.ts`);
    // Assess: the models are the document's components, by name
    const document = JSON.parse(await readFile(resolve(ROOT, 'docs/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, unknown> };
    };
    const missing = Object.keys(document.components.schemas).filter(
      (name) => !new RegExp(`^export type ${name} = `, 'm').test(models),
    );
    expect(missing).toEqual([]);
    expectFlow(outcome);
  }, 240_000);
});
