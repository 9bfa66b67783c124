/**
 * docs/openapi.json as integrators' tools read it: Spectral's `spectral:oas` rules with no finding;
 * every success body and request body a `$ref` to a named component; every time (`*_at`) with
 * `format: date-time`; one way of saying "or null"; `Event` the union of the event types, told apart
 * by `type`, used by GET /v1/events, GET /v1/events/{event_id} and the webhooks; an example for every
 * operation and event. Each structural check is a function of the document, run once on a planted
 * fault (so it can fail) and then on the real document.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../functions/domain/events.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is untyped JSON, navigated freely here.
type Json = Record<string, any>;

const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as Json;
const clone = (): Json => structuredClone(document);

/** Each operation of the document: where it is, and the operation object. */
function operations(doc: Json): { where: string; op: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, methods]) =>
    Object.entries(methods as Json).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })),
  );
}

const isComponentRef = (doc: Json, schema: Json | undefined) =>
  typeof schema?.$ref === 'string' &&
  schema.$ref.startsWith('#/components/schemas/') &&
  doc.components.schemas[schema.$ref.slice('#/components/schemas/'.length)] !== undefined;

/** Success bodies and request bodies that are not a `$ref` to an existing component. */
function unnamedBodies(doc: Json): string[] {
  const problems: string[] = [];
  for (const { where, op } of operations(doc)) {
    const request = op.requestBody?.content?.['application/json']?.schema;
    if (op.requestBody && !isComponentRef(doc, request)) problems.push(`${where}: the request body`);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      const schema = (response as Json).content?.['application/json']?.schema;
      if (status.startsWith('2') && schema && !isComponentRef(doc, schema))
        problems.push(`${where}: ${status}`);
    }
  }
  for (const [type, entry] of Object.entries(doc.webhooks as Json)) {
    if (!isComponentRef(doc, (entry as Json).post.requestBody.content['application/json'].schema)) {
      problems.push(`webhooks.${type}`);
    }
  }
  return problems;
}

/** Walks every schema-like object of the document, with its JSON pointer. */
function walk(node: unknown, visit: (value: Json, pointer: string) => void, pointer = ''): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      walk(v, visit, `${pointer}/${i}`);
    });
  } else if (node !== null && typeof node === 'object') {
    visit(node as Json, pointer);
    for (const [k, v] of Object.entries(node)) {
      if (k !== 'example' && k !== 'examples') walk(v, visit, `${pointer}/${k}`);
    }
  }
}

/** Properties named `*_at` (times) whose schema says no `format: date-time` (a nullable one: its string branch). */
function timesWithoutFormat(doc: Json): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    const properties = node.properties;
    if (!properties || typeof properties !== 'object' || Array.isArray(properties)) return;
    for (const [name, schema] of Object.entries(properties as Json)) {
      if (!name.endsWith('_at')) continue;
      const strings = [schema, ...((schema as Json).anyOf ?? [])].filter((s: Json) => s.type === 'string');
      if (strings.length === 0 || strings.some((s: Json) => s.format !== 'date-time')) {
        problems.push(`${pointer}/properties/${name}`);
      }
    }
  });
  return problems;
}

/** Schemas saying "or null" as a type list (`type: ["string", "null"]`) instead of `anyOf [X, {type: null}]`. */
function otherNullability(doc: Json): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    if (Array.isArray(node.type) && node.type.includes('null')) problems.push(pointer);
  });
  return problems;
}

/** What is wrong with `Event` and its uses. */
function eventProblems(doc: Json): string[] {
  const problems: string[] = [];
  const event = doc.components.schemas.Event as Json | undefined;
  const refs = (event?.oneOf ?? []).map((s: Json) => s.$ref as string);
  for (const type of EVENT_TYPES) {
    const ref = doc.webhooks[type]?.post.requestBody.content['application/json'].schema.$ref;
    if (!refs.includes(ref)) problems.push(`Event has no branch for ${type} (webhooks.${type}: ${ref})`);
    if (event?.discriminator?.mapping?.[type] !== ref)
      problems.push(`Event's discriminator does not map ${type}`);
    const schema = doc.components.schemas[String(ref).split('/').pop() as string] as Json | undefined;
    if (schema?.properties?.type?.const !== type) problems.push(`${ref}: type is not the constant ${type}`);
    if (schema?.additionalProperties !== false) problems.push(`${ref}: the envelope is not closed`);
  }
  if (refs.length !== EVENT_TYPES.length) problems.push(`Event has ${refs.length} branches`);
  if (event?.discriminator?.propertyName !== 'type') problems.push('Event is not discriminated by type');
  const list = doc.components.schemas[
    doc.paths['/v1/events'].get.responses['200'].content['application/json'].schema.$ref.split('/').pop()
  ] as Json;
  if (list?.properties?.data?.items?.$ref !== '#/components/schemas/Event') problems.push('GET /v1/events');
  if (
    doc.paths['/v1/events/{event_id}'].get.responses['200'].content['application/json'].schema.$ref !==
    '#/components/schemas/Event'
  ) {
    problems.push('GET /v1/events/{event_id}');
  }
  return problems;
}

/** Operations and events lacking an example of a body they document. */
function missingExamples(doc: Json): string[] {
  const problems: string[] = [];
  for (const { where, op } of operations(doc)) {
    if (op.requestBody && op.requestBody.content['application/json'].example === undefined) {
      problems.push(`${where}: the request`);
    }
    for (const [status, response] of Object.entries(op.responses as Json)) {
      const json = (response as Json).content?.['application/json'];
      if (status.startsWith('2') && json && json.example === undefined) problems.push(`${where}: ${status}`);
    }
  }
  for (const [type, entry] of Object.entries(doc.webhooks as Json)) {
    if ((entry as Json).post.requestBody.content['application/json'].example === undefined) {
      problems.push(`webhooks.${type}`);
    }
  }
  return problems;
}

/**
 * Where the document and getting-started disagree on the idempotency answers: for every write, the
 * same key with another request is 422 and a key whose first request still runs is 409, said by the
 * Idempotency-Key parameter and by the write's 409 and 422 answers; the guide says the same.
 */
function idempotencyDisagreements(doc: Json, guide: string): string[] {
  const problems: string[] = [];
  for (const { where, op } of operations(doc)) {
    const parameter = (op.parameters as Json[]).find((p) => p.name === 'Idempotency-Key');
    if (where.startsWith('GET ')) continue;
    if (!/another request: 422/.test(parameter?.description ?? '')) problems.push(`${where}: parameter, 422`);
    if (!/while the first still runs: 409/.test(parameter?.description ?? ''))
      problems.push(`${where}: parameter, 409`);
    if (!/Idempotency-Key is still being processed/.test(op.responses['409']?.description ?? '')) {
      problems.push(`${where}: no 409 for a key still running`);
    }
    if (!/Idempotency-Key .*was used with another request/.test(op.responses['422']?.description ?? '')) {
      problems.push(`${where}: no 422 for a key used with another request`);
    }
  }
  if (!/the same key with another request → 422/.test(guide)) problems.push('getting-started: 422');
  if (!/while the first request still\s+runs → 409/.test(guide)) problems.push('getting-started: 409');
  return problems;
}

describe('the shape of docs/openapi.json', () => {
  it('says what getting-started says of the idempotency answers: 422 for another request, 409 while the first runs', () => {
    const guide = readFileSync('docs/getting-started.md', 'utf8');
    const planted = clone();
    planted.paths['/v1/leads'].post.responses['409'].description = 'Conflict';
    expect(idempotencyDisagreements(planted, guide.replace('→ 409', '→ 429'))).toEqual([
      'POST /v1/leads: no 409 for a key still running',
      'getting-started: 409',
    ]);
    expect(idempotencyDisagreements(document, guide)).toEqual([]);
  });

  it('every success body and request body is a $ref to a named component', () => {
    const planted = clone();
    planted.paths['/v1/leads'].post.requestBody.content['application/json'].schema = { type: 'object' };
    expect(unnamedBodies(planted)).toEqual(['POST /v1/leads: the request body']);
    expect(unnamedBodies(document)).toEqual([]);
  });

  it('every *_at is a date-time, and "or null" is written one way', () => {
    const planted = clone();
    delete planted.components.schemas.Lead.properties.created_at.format;
    planted.components.schemas.Lead.properties.notes = { type: ['string', 'null'] };
    expect(timesWithoutFormat(planted)).toEqual(['/components/schemas/Lead/properties/created_at']);
    expect(otherNullability(planted)).toEqual(['/components/schemas/Lead/properties/notes']);
    expect(timesWithoutFormat(document)).toEqual([]);
    expect(otherNullability(document)).toEqual([]);
  });

  it('Event is the union of the event types by type, answered by the event log and posted to subscribers', () => {
    const planted = clone();
    planted.components.schemas.Event.oneOf.pop();
    expect(eventProblems(planted)).toContain('Event has 12 branches');
    expect(eventProblems(document)).toEqual([]);
  });

  it('every operation and event has an example of each body it documents', () => {
    const planted = clone();
    delete planted.webhooks['lead.created'].post.requestBody.content['application/json'].example;
    expect(missingExamples(planted)).toEqual(['webhooks.lead.created']);
    expect(missingExamples(document)).toEqual([]);
  });

  it("passes Spectral's spectral:oas rules with no finding (.spectral.yaml)", async () => {
    // Act: the CLI as installed, on the committed document
    const { stdout } = await promisify(execFile)(
      'node_modules/.bin/spectral',
      ['lint', 'docs/openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    // Assess: every finding, hints included, by rule and place
    const findings = (JSON.parse(stdout || '[]') as { code: string; path: string[]; message: string }[]).map(
      (f) => `${f.code} at ${f.path.join('.')}: ${f.message}`,
    );
    expect(findings).toEqual([]);
  }, 120_000);
});
