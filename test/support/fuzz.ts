/**
 * Property-based fuzzing of the HTTP interface from docs/openapi.json: per operation, valid requests
 * (built from its parameter and body schemas) and mutated ones (wrong types, edge numbers, unicode
 * incl. lone surrogates, oversize, unknown fields, deep nesting, prototype keys, bad ids and
 * encodings, broken headers). Requests go over a raw socket so that bytes `fetch` refuses to send
 * (broken headers, invalid UTF-8) reach the server as an attacker would send them.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { type Contract, responseProblems } from './contract.ts';
import { arbitraryFor, type IdPool, type JsonSchema } from './fuzz-schema.ts';

/** One operation of the OpenAPI document, as the fuzzer needs it. */
export interface FuzzOperation {
  operationId: string;
  method: string;
  /** The path template: `/v1/leads/{lead_id}`. */
  path: string;
  pathParams: { name: string; schema: JsonSchema }[];
  queryParams: { name: string; required: boolean; schema: JsonSchema }[];
  body?: JsonSchema;
  /** The statuses the document lists for the operation. */
  documented: ReadonlySet<number>;
}

/** A request as it goes on the wire (path already encoded), and as a failure prints it. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body text; `latin1` sends its char codes as raw bytes (invalid UTF-8 on purpose). */
  body?: string;
  bodyEncoding?: 'utf8' | 'latin1';
}

export interface FuzzResponse {
  status: number;
  /** The response headers, by lower-case name (repeated ones joined with `, `). */
  headers: Record<string, string>;
  /** The whole response body (de-chunked), as text. */
  body: string;
  /** The start of the response body, for failure messages. */
  text: string;
}

/**
 * Statuses any operation may answer before its own handler runs (the pipeline: a malformed request
 * line or header, a body over the limit): accepted for valid requests until the contract validator
 * lists them per operation.
 */
export const PIPELINE_STATUSES: ReadonlySet<number> = new Set([400, 413]);

/** Runs per property: `FUZZ_RUNS` when set (longer runs), else the given default. */
export function fuzzRuns(ciDefault: number): number {
  const fromEnv = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : ciDefault;
}

type OpenApiParameter = { name: string; in: string; required?: boolean; schema?: JsonSchema };
type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: OpenApiParameter[];
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
        responses: Record<string, unknown>;
      }
    >
  >;
  components?: { schemas?: Record<string, JsonSchema> };
};

/**
 * `schema` with every `$ref` to a component replaced by the component itself (the document names its
 * bodies: `{"$ref": "#/components/schemas/LeadIngestIn"}`), so that values are drawn from the shape.
 */
function inlined(document: OpenApiDocument, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlined(document, s));
  if (schema === null || typeof schema !== 'object') return schema;
  const { $ref, ...rest } = schema as { $ref?: unknown };
  const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlined(document, v)]));
  if (typeof $ref !== 'string') return own;
  const name = $ref.replace('#/components/schemas/', '');
  const component = document.components?.schemas?.[name];
  if (!component) throw new Error(`The document references a missing schema ${$ref}`);
  return { ...(inlined(document, component) as object), ...own };
}

/** Every operation of the document, in document order. */
export function operationsFrom(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, byMethod] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      const parameters = op.parameters ?? [];
      const reference = op.requestBody?.content?.['application/json']?.schema;
      const body = reference ? (inlined(document, reference) as JsonSchema) : undefined;
      operations.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: parameters
          .filter((p) => p.in === 'path')
          .map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: parameters
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? {} })),
        ...(body ? { body } : {}),
        documented: new Set(Object.keys(op.responses).map(Number)),
      });
    }
  }
  return operations;
}

/** Percent-encodes as UTF-8; a lone surrogate becomes U+FFFD instead of throwing. */
function encode(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** A request under construction: mutations work on its parts before it is put on the wire. */
interface Draft {
  method: string;
  template: string;
  /** Encoded path segments by parameter name. */
  path: Record<string, string>;
  /** Query pairs; values are encoded unless the pair is marked raw. */
  query: { name: string; value: string; raw?: boolean }[];
  headers: Record<string, string>;
  body?: unknown;
  /** Overrides `body` with text sent as is. */
  rawBody?: string;
  bodyEncoding?: 'utf8' | 'latin1';
}

function toRequest(draft: Draft): FuzzRequest {
  let path = draft.template;
  for (const [name, segment] of Object.entries(draft.path)) path = path.replace(`{${name}}`, segment);
  if (draft.query.length) {
    path += `?${draft.query.map((q) => `${encode(q.name)}=${q.raw ? q.value : encode(q.value)}`).join('&')}`;
  }
  const headers = { ...draft.headers };
  let body: string | undefined;
  if (draft.rawBody !== undefined) body = draft.rawBody;
  else if (draft.body !== undefined) body = JSON.stringify(draft.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  return {
    method: draft.method,
    path,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(draft.bodyEncoding ? { bodyEncoding: draft.bodyEncoding } : {}),
  };
}

function validDraft(op: FuzzOperation, ids: IdPool): fc.Arbitrary<Draft> {
  const path: Record<string, fc.Arbitrary<string>> = {};
  for (const p of op.pathParams) {
    path[p.name] = (arbitraryFor(p.schema, p.name, ids) as fc.Arbitrary<unknown>).map((v) =>
      encode(String(v)),
    );
  }
  const query: Record<string, fc.Arbitrary<{ name: string; value: string }>> = {};
  for (const q of op.queryParams) {
    query[q.name] = arbitraryFor(q.schema, q.name, ids).map((v) => ({ name: q.name, value: String(v) }));
  }
  const requiredQuery = op.queryParams.filter((q) => q.required).map((q) => q.name);
  return fc
    .record({
      path: fc.record(path),
      query: fc.record(query, { requiredKeys: requiredQuery }),
      idempotencyKey: op.method === 'GET' ? fc.constant(undefined) : fc.option(fc.uuid(), { nil: undefined }),
      body: op.body ? arbitraryFor(op.body, '', ids) : fc.constant(undefined),
    })
    .map(
      ({ path: segments, query: pairs, idempotencyKey, body }): Draft => ({
        method: op.method,
        template: op.path,
        path: segments,
        query: Object.values(pairs),
        headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : ({} as Record<string, string>),
        ...(body !== undefined ? { body } : {}),
      }),
    );
}

/** Valid requests for `op`: ids drawn from `ids` (the test's fixtures) or fresh. */
export function validRequests(op: FuzzOperation, ids: IdPool = {}): fc.Arbitrary<FuzzRequest> {
  return validDraft(op, ids).map(toRequest);
}

// ---------------------------------------------------------------------------------------------
// Mutations

const LONE_SURROGATES = ['\ud800', '\udfff', 'a\ud83d', '\ude00b'];
const EDGE_UNICODE = [
  '\u0000',
  '\u202e',
  '\u200b',
  '\ufeff',
  '\uffff',
  '😀👨‍👩‍👧',
  'Ω≈ç√',
  '\u0301'.repeat(50),
];
const EDGE_NUMBERS = [
  0,
  -0,
  -1,
  1.5,
  2 ** 31,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
];
const BAD_SEGMENTS = [
  '%ZZ',
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AE%C0%AE',
  '%',
  '..',
  '%2E%2E',
  '%2F',
  '%00',
  'x'.repeat(2000),
  encode('\u202e😀'),
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  encode(' '),
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

/** A text: lone surrogates, control and combining characters, or just a lot of it. */
const nastyString = fc.oneof(
  fc.constantFrom(...LONE_SURROGATES, ...EDGE_UNICODE),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.integer({ min: 256, max: 300_000 }).map((n) => 'x'.repeat(n)),
);
/** Any JSON value of a type a field probably did not expect. */
const wrongValue = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, [], {}, '', '0', 'null', [null], { $ne: null }),
  fc.constantFrom(...EDGE_NUMBERS),
  nastyString,
  fc.jsonValue({ maxDepth: 3 }),
);

type Mutation = (draft: Draft) => Draft;

function mutateBodyField(pick: number, value: unknown): Mutation {
  return (draft) => {
    const body = draft.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return { ...draft, body: value };
    const keys = Object.keys(body);
    if (!keys.length) return { ...draft, body: { ...body, title: value } };
    const key = keys[pick % keys.length] as string;
    return { ...draft, body: { ...body, [key]: value } };
  };
}

function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? '['.repeat(depth) + ']'.repeat(depth)
    : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** One mutation of a request. */
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  // Wrong types, edge numbers, unicode and oversize values in a body field.
  fc.tuple(fc.nat(), wrongValue).map(([pick, value]) => mutateBodyField(pick, value)),
  // Unknown fields (incl. prototype keys, through raw JSON so they are real own keys).
  fc.tuple(fc.string({ maxLength: 12 }), wrongValue).map(
    ([name, value]): Mutation =>
      (draft) => ({
        ...draft,
        body: { ...(typeof draft.body === 'object' && draft.body ? draft.body : {}), [`x_${name}`]: value },
      }),
  ),
  fc.tuple(fc.constantFrom(...PROTO_KEYS), fc.boolean()).map(
    ([key, inside]): Mutation =>
      (draft) => {
        const payload = `{"${key}":{"polluted":true,"status":"won","tenant_id":"other"}`;
        const base = JSON.stringify(draft.body ?? {});
        const text =
          inside && base.startsWith('{') && base.length > 2 ? `${payload},${base.slice(1)}` : `${payload}}`;
        return { ...draft, rawBody: inside ? text : `${payload}}` };
      },
  ),
  // Deeply nested bodies, as the body or inside a field.
  fc
    .tuple(
      fc.integer({ min: 100, max: 20_000 }),
      fc.constantFrom<'array' | 'object'>('array', 'object'),
      fc.boolean(),
    )
    .map(
      ([depth, kind, inField]): Mutation =>
        (draft) => ({
          ...draft,
          rawBody: inField ? `{"title":"t","name":"n","notes":${nested(depth, kind)}}` : nested(depth, kind),
        }),
    ),
  // Broken bodies: not JSON, numbers JSON cannot hold, invalid UTF-8, wrong top-level types, empty, oversize.
  fc
    .constantFrom(
      '',
      '{',
      'null',
      '[]',
      '"text"',
      '123',
      '{"title":1e999,"name":1e999,"price":-1e999}',
      '{"title":"a","title":"b"}',
      '\u0000',
      '{"title":"\\ud800","name":"\\udfff x"}',
      'title=x&name=y',
    )
    .map(
      (raw): Mutation =>
        (draft) => ({ ...draft, rawBody: raw }),
    ),
  fc.constant<Mutation>((draft) => ({
    ...draft,
    rawBody: '{"title":"\xff\xfe\xc0\xaf","name":"\xed\xa0\x80"}',
    bodyEncoding: 'latin1',
  })),
  fc.constant<Mutation>((draft) => ({ ...draft, rawBody: `{"title":"${'y'.repeat(1_100_000)}"}` })),
  // Bad ids and encodings in the path.
  fc.tuple(fc.constantFrom(...BAD_SEGMENTS), fc.nat()).map(
    ([segment, pick]): Mutation =>
      (draft) => {
        const names = Object.keys(draft.path);
        if (!names.length) return { ...draft, template: `${draft.template}/${segment}` };
        return { ...draft, path: { ...draft.path, [names[pick % names.length] as string]: segment } };
      },
  ),
  // Query strings: wrong types, edge values, bad encodings, unknown and repeated parameters.
  fc
    .tuple(
      fc.constantFrom(
        'limit',
        'cursor',
        'updated_since',
        'include_archived',
        'lang',
        'status',
        'tier',
        'owner',
        'q',
        'lead_id',
        'property_id',
        'x',
      ),
      fc.oneof(
        fc.constantFrom(
          '-1',
          '0',
          '1e309',
          '99999999999999999999',
          'NaN',
          '1.5',
          'abc',
          '',
          '%ZZ',
          '%ED%A0%80',
          '0x10',
          '[]',
        ),
        fc.string({ unit: 'binary', maxLength: 20 }).map(encode),
        fc.integer({ min: 1000, max: 20_000 }).map((n) => 'q'.repeat(n)),
      ),
      fc.boolean(),
    )
    .map(
      ([name, value, twice]): Mutation =>
        (draft) => ({
          ...draft,
          query: [...draft.query, { name, value, raw: true }, ...(twice ? [{ name, value: 'other' }] : [])],
        }),
    ),
  // Broken headers: content types, idempotency keys, authorization, raw bytes.
  fc
    .tuple(
      fc.constantFrom(
        'content-type',
        'idempotency-key',
        'authorization',
        'accept',
        'x-forwarded-for',
        'accept-language',
      ),
      fc.constantFrom(
        '',
        'text/plain',
        'application/json; charset=latin1',
        'multipart/form-data; boundary=x',
        'Bearer ',
        'Bearer svc_live_\xff\xfe',
        'Basic Og==',
        'x'.repeat(8000),
        '\xed\xa0\x80',
        '*/*;q=abc',
        '../../etc/passwd',
      ),
    )
    .map(
      ([name, value]): Mutation =>
        (draft) => ({ ...draft, headers: { ...draft.headers, [name]: value } }),
    ),
  // The wrong method on a known path.
  fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD').map(
    (method): Mutation =>
      (draft) => ({ ...draft, method }),
  ),
);

/** Mutated requests for `op`: a valid request with one to three mutations applied. */
export function mutatedRequests(op: FuzzOperation, ids: IdPool = {}): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(validDraft(op, ids), fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([draft, mutations]) => toRequest(mutations.reduce((d, m) => m(d), draft)));
}

// ---------------------------------------------------------------------------------------------
// Sending and checking

/**
 * Sends `request` to `baseUrl` over a raw socket (HTTP/1.1, `Connection: close`), so header values
 * and body bytes go out exactly as given. `key` is added as a Bearer token unless the request sets
 * its own Authorization.
 */
export function send(baseUrl: string, request: FuzzRequest, key?: string): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const body =
    request.body === undefined ? undefined : Buffer.from(request.body, request.bodyEncoding ?? 'utf8');
  const headers: Record<string, string> = { host: url.host, connection: 'close' };
  if (key) headers.authorization = `Bearer ${key}`;
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  if (body) headers['content-length'] = String(body.length);
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${Object.entries(headers)
    .map(([n, v]) => `${n}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const finish = (error?: Error) => {
      const raw = Buffer.concat(chunks);
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw.subarray(0, 16).toString('latin1'));
      if (match) {
        const split = raw.indexOf('\r\n\r\n');
        const head = raw.subarray(0, split).toString('latin1');
        const rest = raw.subarray(split + 4);
        // Chunk sizes count bytes: de-chunk the bytes, then decode (a character may span chunks).
        const body = (/^transfer-encoding:\s*chunked/im.test(head) ? dechunk(rest) : rest).toString('utf8');
        resolve({ status: Number(match[1]), headers: headersOf(head), body, text: body.slice(0, 600) });
      } else {
        reject(
          error ??
            new Error(`no HTTP response (got ${JSON.stringify(raw.subarray(0, 200).toString('utf8'))})`),
        );
      }
    };
    socket.setTimeout(60_000, () => socket.destroy(new Error('no response within 60 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    // The server may answer and close before the whole body is written (413): the answer counts.
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'latin1'));
      if (body) socket.write(body);
    });
  });
}

/** A request as a failure message shows it: method, path, headers, and the body (long ones cut). */
export function formatRequest(request: FuzzRequest): string {
  const body = request.body === undefined ? '(none)' : abbreviate(request.body);
  return [
    `${request.method} ${abbreviate(request.path)}`,
    ...Object.entries(request.headers).map(([n, v]) => `${n}: ${abbreviate(v)}`),
    `body${request.bodyEncoding === 'latin1' ? ' (raw bytes)' : ''}: ${body}`,
  ].join('\n');
}

function abbreviate(text: string): string {
  if (text.length <= 300) return visible(text);
  return `${visible(text.slice(0, 200))}… (${text.length} chars) …${visible(text.slice(-40))}`;
}

/** Control characters and lone surrogates as `\uXXXX`, so that a failure message shows them. */
function visible(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The header lines of a response head (after its status line), by lower-case name. */
function headersOf(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

/** The body of a chunked response, joined (sizes and data in bytes). */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = raw;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.subarray(0, line).toString('latin1'), 16);
    if (line < 0 || !size) return Buffer.concat(parts);
    parts.push(rest.subarray(line + 2, line + 2 + size));
    rest = rest.subarray(line + 2 + size + 2);
  }
}

export interface FuzzCheck {
  arbitrary: fc.Arbitrary<FuzzRequest>;
  send: (request: FuzzRequest) => Promise<FuzzResponse>;
  /** Says what is wrong with a response, or `undefined` when it is acceptable. */
  verdict: (request: FuzzRequest, response: FuzzResponse) => string | undefined;
  numRuns: number;
  seed: number;
  /** How to run the same requests again, named in the failure (e.g. `FUZZ_SEED=123 npm run test:slow`). */
  replay?: string;
}

/**
 * Runs the property; on failure throws an error that names the problem and prints the shrunk
 * request (and the seed and path to replay it). Resolves to the number of runs made.
 */
export async function checkRequests(check: FuzzCheck): Promise<number> {
  const property = fc.asyncProperty(check.arbitrary, async (request) => {
    const response = await check.send(request);
    const problem = check.verdict(request, response);
    // Thrown, not returned: the error of the shrunk run is the one fast-check reports.
    if (problem) throw new Error(`${problem}: ${response.text.slice(0, 300)}`);
  });
  const details = await fc.check(property, { seed: check.seed, numRuns: check.numRuns, endOnFailure: false });
  if (details.failed) {
    const request = details.counterexample?.[0] as FuzzRequest | undefined;
    throw new Error(
      [
        `fuzz property failed after ${details.numRuns} run(s), shrunk ${details.numShrinks} time(s)`,
        `problem: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
        'shrunk request:',
        request ? formatRequest(request) : '(none)',
        `replay: seed ${details.seed}, path "${details.counterexamplePath}"${check.replay ? ` (${check.replay})` : ''}`,
      ].join('\n'),
    );
  }
  return details.numRuns;
}

/**
 * Valid requests: below 500, and a status the document lists for the operation or a pipeline
 * status. Given the `contract` the operation comes from, a documented answer must also pass the
 * contract check (test/support/contract.ts): its headers and its body against the status's schema.
 */
export function validVerdict(op: FuzzOperation, contract?: Contract) {
  return (request: FuzzRequest, response: FuzzResponse): string | undefined => {
    if (response.status >= 500) return `status ${response.status} (5xx)`;
    if (!op.documented.has(response.status)) {
      return PIPELINE_STATUSES.has(response.status)
        ? undefined
        : `status ${response.status} is not documented for ${op.operationId}`;
    }
    if (!contract) return undefined;
    return documentProblem(request, response, contract);
  };
}

/** The contract check of one answer (test/support/contract.ts), as one verdict line, or none. */
function documentProblem(
  request: FuzzRequest,
  response: FuzzResponse,
  contract: Contract,
): string | undefined {
  const problems = responseProblems(
    request.method,
    request.path,
    response.status,
    response.headers,
    parsedBody(response),
    contract,
  );
  return problems.length > 0 ? `the answer breaks the document:\n- ${problems.join('\n- ')}` : undefined;
}

/** The body as the contract check takes it: JSON parsed when it is JSON, else the text (or none). */
function parsedBody(response: FuzzResponse): unknown {
  if (response.body === '') return undefined;
  if (!/json/i.test(response.headers['content-type'] ?? '')) return response.body;
  try {
    return JSON.parse(response.body);
  } catch {
    return response.body;
  }
}

/** Mutated requests: anything but a 5xx. */
export function mutatedVerdict(_request: FuzzRequest, response: FuzzResponse): string | undefined {
  return response.status >= 500 ? `status ${response.status} (5xx)` : undefined;
}

/**
 * Mutated requests checked against the document too: never a 5xx, and whatever answers them
 * (a 404 for a path no operation serves, a 422 naming the bad field, a 413 from the gateway)
 * passes the contract check, as an integrator's validator would check it.
 */
export function mutatedVerdictAgainst(contract: Contract) {
  return (request: FuzzRequest, response: FuzzResponse): string | undefined => {
    return mutatedVerdict(request, response) ?? documentProblem(request, response, contract);
  };
}
