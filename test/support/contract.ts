import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * The contract check: an answer of the API against docs/openapi.json, with Ajv (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1) over the document itself, so `$ref`s to its components resolve as
 * the document states them. The e2e HTTP client (http.ts) runs it on every answer; other test
 * helpers (fuzzing) may call {@link checkResponse} directly.
 */

interface MediaType {
  schema?: unknown;
}
interface HeaderObject {
  required?: boolean;
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, MediaType>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, ResponseObject> }>>;
  components?: { headers?: Record<string, HeaderObject> };
  /** What the service POSTs to subscribers, one entry per event type (OpenAPI 3.1 `webhooks`). */
  webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, MediaType> } } }>;
}

const DOCUMENT_ID = 'openapi.json';
/** Headers of HTTP itself, which no operation documents. */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);
/** What the local server answers for a request no route matches (not an operation's answer). */
const UNROUTED_STATUSES = new Set([404, 405]);
/**
 * What the HTTP layer answers before a request reaches any operation: 431 when the request line and
 * headers outrun its limit (Node's 16 KB here, API Gateway's own in AWS), with no body. An HTTP
 * error of the transport, like a malformed request line's 400, not an answer the document describes.
 */
const TRANSPORT_STATUSES = new Set([431]);

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** A loaded document: its operations by method and path template, and Ajv holding it. */
export interface Contract {
  document: OpenApiDocument;
  ajv: Ajv2020;
  templates: { template: string; pattern: RegExp; parameters: number }[];
  compiled: Map<string, ValidateFunction>;
}

/** Loads and compiles a document (by default docs/openapi.json). */
export function loadContract(
  document: OpenApiDocument = JSON.parse(
    readFileSync(resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'),
  ) as OpenApiDocument,
): Contract {
  // strict: false lets OpenAPI's own keywords (paths, components, description on a $ref) pass.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  ajv.addSchema(document as object, DOCUMENT_ID);
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    parameters: (template.match(/\{/g) ?? []).length,
  }));
  return { document, ajv, templates, compiled: new Map() };
}

let defaultContract: Contract | undefined;

/** docs/openapi.json, loaded once per test worker. */
function theDocument(): Contract {
  defaultContract ??= loadContract();
  return defaultContract;
}

function pointerPart(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function validatorAt(contract: Contract, pointer: string[]): ValidateFunction {
  const ref = `${DOCUMENT_ID}#/${pointer.map(pointerPart).join('/')}`;
  let validate = contract.compiled.get(ref);
  if (!validate) {
    validate = contract.ajv.compile({ $ref: ref });
    contract.compiled.set(ref, validate);
  }
  return validate;
}

function resolveHeader(contract: Contract, header: HeaderObject | { $ref: string }): HeaderObject {
  if ('$ref' in header) {
    const name = header.$ref.replace('#/components/headers/', '');
    const resolved = contract.document.components?.headers?.[name];
    if (!resolved) throw new Error(`The document references a missing header ${header.$ref}`);
    return resolved;
  }
  return header;
}

/** A header value is text; a number schema is checked against the number it spells. */
function headerValueProblem(schema: Record<string, unknown> | undefined, value: string): string | undefined {
  if (schema?.type === 'integer') {
    if (!/^-?\d+$/.test(value)) return `is ${JSON.stringify(value)}, not an integer`;
    if (typeof schema.minimum === 'number' && Number(value) < schema.minimum)
      return `is below ${schema.minimum}`;
  }
  return undefined;
}

export type HeaderSource = Headers | Record<string, string | undefined>;

function headerMap(headers: HeaderSource): Map<string, string> {
  const entries: [string, string][] =
    headers instanceof Headers
      ? [...headers.entries()]
      : Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined);
  return new Map(entries.map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * The problems of one answer against the document (empty when it conforms): the status must be
 * documented for the operation, every required header present and well-formed, no header left
 * undocumented, and the body valid against the documented schema (or absent when none is).
 * `path` is the request's path (a query string is ignored); a path no operation serves may only
 * be answered 404 or 405.
 */
export function responseProblems(
  method: string,
  path: string,
  status: number,
  headers: HeaderSource,
  body: unknown,
  contract: Contract = theDocument(),
): string[] {
  const where = `${method.toUpperCase()} ${path} → ${status}`;
  if (TRANSPORT_STATUSES.has(status)) return body === undefined || body === '' ? [] : [`${where}: a body`];
  // The path as a server reads it: dot segments (`/.`, `/..`) are removed before any route is
  // matched (RFC 3986, section 5.2.4), so `/v1/site/locations/.` asks for `/v1/site/locations/`.
  const pathname = new URL(path, 'http://server.invalid').pathname;
  const verb = method.toLowerCase();
  const template = contract.templates
    .filter((t) => t.pattern.test(pathname) && contract.document.paths[t.template]?.[verb])
    .sort((a, b) => a.parameters - b.parameters)[0]?.template;
  if (!template) {
    return UNROUTED_STATUSES.has(status) ? [] : [`${where}: no documented operation serves this request`];
  }
  const responses = contract.document.paths[template]?.[verb]?.responses ?? {};
  const statusKey = String(status) in responses ? String(status) : `${String(status)[0]}XX`;
  const documented = responses[statusKey] ?? responses.default;
  if (!documented) {
    return [`${where}: status ${status} is not documented for ${verb.toUpperCase()} ${template}`];
  }
  const problems: string[] = [];
  const received = headerMap(headers);
  const documentedHeaders = new Set<string>();
  for (const [name, declared] of Object.entries(documented.headers ?? {})) {
    const header = resolveHeader(contract, declared);
    documentedHeaders.add(name.toLowerCase());
    const value = received.get(name.toLowerCase());
    if (value === undefined) {
      if (header.required) problems.push(`${where}: the required header ${name} is missing`);
      continue;
    }
    const problem = headerValueProblem(header.schema, value);
    if (problem) problems.push(`${where}: header ${name} ${problem}`);
  }
  for (const name of received.keys()) {
    if (!documentedHeaders.has(name) && !TRANSPORT_HEADERS.has(name)) {
      problems.push(`${where}: the header ${name} is not documented`);
    }
  }
  const statusPointer = [
    'paths',
    template,
    verb,
    'responses',
    statusKey in responses ? statusKey : 'default',
  ];
  const json = documented.content?.['application/json'];
  if (!json?.schema) {
    if (body !== undefined && body !== '') problems.push(`${where}: a body is sent where none is documented`);
    return problems;
  }
  if (body === undefined) return [...problems, `${where}: the documented JSON body is missing`];
  const validate = validatorAt(contract, [...statusPointer, 'content', 'application/json', 'schema']);
  if (!validate(body)) {
    const operationId = contract.document.paths[template]?.[verb]?.operationId;
    for (const error of validate.errors ?? []) {
      problems.push(
        `${where}${operationId ? ` (${operationId})` : ''}: body${error.instancePath} ${error.message} (${error.schemaPath})`,
      );
    }
  }
  return problems;
}

/**
 * The problems of one event (a webhook delivery's parsed body, or an item of GET /v1/events) against
 * the schema the document gives its type, `webhooks[type]`'s request body: what an integrator's
 * validator checks a delivery against. Empty when it conforms; each problem names the type, the
 * event id and the JSON path.
 */
export function eventProblems(event: unknown, contract: Contract = theDocument()): string[] {
  const { type, id } = (event ?? {}) as { type?: unknown; id?: unknown };
  const where = `event ${String(type)} ${String(id)}`;
  if (
    typeof type !== 'string' ||
    !contract.document.webhooks?.[type]?.post?.requestBody?.content?.['application/json']
  ) {
    return [`${where}: the document has no webhooks entry for this type`];
  }
  const validate = validatorAt(contract, [
    'webhooks',
    type,
    'post',
    'requestBody',
    'content',
    'application/json',
    'schema',
  ]);
  if (validate(event)) return [];
  const problems = (validate.errors ?? []).map((error) => {
    const property = (error.params as { additionalProperty?: string }).additionalProperty;
    return `${where} (webhooks.${type}): ${error.instancePath || '/'} ${error.message}${property ? ` (${property})` : ''} (${error.schemaPath})`;
  });
  return [...new Set(problems)];
}

/** {@link responseProblems}, thrown as one error listing them all; returns quietly when the answer conforms. */
export function checkResponse(
  method: string,
  path: string,
  status: number,
  headers: HeaderSource,
  body: unknown,
  contract?: Contract,
): void {
  const problems = responseProblems(method, path, status, headers, body, contract);
  if (problems.length > 0) {
    throw new Error(`The answer breaks docs/openapi.json:\n- ${problems.join('\n- ')}`);
  }
}
