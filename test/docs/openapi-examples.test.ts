/**
 * The examples of docs/openapi.json (scripts/openapi-examples.ts) are what they illustrate: each one
 * validates against the schema beside it, with Ajv (JSON Schema 2020-12, ajv-formats: date-time,
 * uuid and the rest checked), and each request example is one the API's own validation accepts (the
 * operation's zod schema). An example that stops matching its schema fails here, with its place.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../functions/pipeline/operation.ts';
import { routes } from '../../functions/routes.ts';
import { OPERATION_EXAMPLES } from '../../scripts/openapi-examples.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is untyped JSON, navigated freely here.
type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ROOT = resolve(import.meta.dirname, '../..');
const DOCUMENT_ID = 'openapi.json';
const pointerPart = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Every example of `doc` beside the pointer of the schema it illustrates. */
function examplesOf(doc: Json): { where: string; example: unknown; schemaPointer: string[] }[] {
  const found: { where: string; example: unknown; schemaPointer: string[] }[] = [];
  const media = (where: string, pointer: string[], content: Json | undefined) => {
    const json = content?.['application/json'];
    if (json?.example !== undefined) {
      found.push({
        where,
        example: json.example,
        schemaPointer: [...pointer, 'content', 'application/json', 'schema'],
      });
    }
  };
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(methods as Json)) {
      const at = ['paths', path, method];
      media(`${op.operationId} request`, [...at, 'requestBody'], op.requestBody?.content);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        media(`${op.operationId} ${status}`, [...at, 'responses', status], (response as Json).content);
      }
    }
  }
  for (const [type, entry] of Object.entries(doc.webhooks as Json)) {
    media(
      `webhooks.${type}`,
      ['webhooks', type, 'post', 'requestBody'],
      (entry as Json).post.requestBody.content,
    );
  }
  return found;
}

/** Each example that does not validate against its schema: where, and Ajv's words with the JSON path. */
function invalidExamples(doc: Json): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  ajv.addSchema(doc, DOCUMENT_ID);
  return examplesOf(doc).flatMap(({ where, example, schemaPointer }) => {
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${schemaPointer.map(pointerPart).join('/')}` });
    return validate(example)
      ? []
      : (validate.errors ?? []).map(
          (e) => `${where}: ${e.instancePath || '/'} ${e.message} (${e.schemaPath})`,
        );
  });
}

const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as Json;

describe('the examples of docs/openapi.json', () => {
  it('each validates against the schema it illustrates', () => {
    // Prepare: a planted fault, to show the check can fail
    const planted = structuredClone(document);
    planted.paths['/v1/leads/{lead_id}'].get.responses['200'].content['application/json'].example.created_at =
      'yesterday';
    // Act
    const plantedProblems = invalidExamples(planted);
    const problems = invalidExamples(document);
    // Assess
    expect(plantedProblems).toHaveLength(1);
    expect(plantedProblems[0]).toMatch(/^getLead 200: \/created_at must match format "date-time"/);
    expect(examplesOf(document).length).toBeGreaterThan(90);
    expect(problems).toEqual([]);
  });

  it("each request example is one the operation's own validation accepts", async () => {
    const refused: string[] = [];
    for (const route of routes) {
      const request = OPERATION_EXAMPLES[route.operationId]?.request;
      if (request === undefined) continue;
      const url = pathToFileURL(resolve(ROOT, 'functions/http', route.entry)).href;
      const { operation } = (await import(/* @vite-ignore */ url)) as { operation: Operation };
      const parsed = operation.spec.body?.safeParse(request);
      if (!parsed?.success) refused.push(`${route.operationId}: ${JSON.stringify(parsed?.error?.issues)}`);
    }
    expect(refused).toEqual([]);
  });
});
