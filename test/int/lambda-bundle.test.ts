import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpEvent, HttpResponse, LambdaContext } from '../../functions/pipeline/http.ts';
import { type OperationId, routeFor } from '../../functions/routes.ts';
import { esbuildOptions, HANDLER_FILE, staticClosure } from '../../lib/bundling.ts';
import { httpEvent, lambdaContext } from '../../scripts/local/lambda-events.ts';
import { createTestTenant } from '../support/factories.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The SDK packages every bundle carries: ElectroDB drives the SDK's document client, bundled. */
const BUNDLED_SDK = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];

const HANDLERS = {
  createProperty: 'functions/http/properties/create-property.ts',
  getProperty: 'functions/http/properties/get-property.ts',
} as const satisfies Partial<Record<OperationId, string>>;
type Bundled = keyof typeof HANDLERS;

interface Bundle {
  file: string;
  /** Paths of every module esbuild put into the code loaded at import, relative to the repository root. */
  inputs: string[];
}

let outDir: string;
const bundles = new Map<Bundled, Bundle>();

/**
 * Bundles `entry` exactly as deployed (lib/bundling.ts: the generated entry that registers the
 * function's own route row, code splitting), as scripts/bench/sections/cold-start.ts does.
 */
async function bundle(name: Bundled, entry: string): Promise<Bundle> {
  const dir = join(outDir, name);
  const { metafile } = await build(esbuildOptions({ module: entry, route: routeFor(name) }, dir));
  const file = join(dir, HANDLER_FILE);
  const handlerOutput = relative(ROOT, file);
  if (!(metafile as Metafile).outputs[handlerOutput]) throw new Error(`esbuild produced no ${file}`);
  const loaded = staticClosure(metafile as Metafile, handlerOutput);
  return {
    file,
    inputs: [
      ...new Set(
        loaded.flatMap((output) => Object.keys((metafile as Metafile).outputs[output]?.inputs ?? {})),
      ),
    ],
  };
}

type Handler = (event: HttpEvent, context: LambdaContext) => Promise<HttpResponse>;

/**
 * The bundled module's `handler`, from an `import()` of the .mjs. Vitest's module runner evaluates
 * it, but every module in it is the bundle's own: its config, its SDK client, its ElectroDB.
 */
async function load(name: Bundled): Promise<Handler> {
  const file = bundles.get(name)?.file;
  if (!file) throw new Error(`${name} was not bundled`);
  const module = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { handler: Handler };
  return module.handler;
}

/** Invokes a bundled handler with the API Gateway v2 event of one request. */
async function invoke(
  name: Bundled,
  key: string,
  request: { pathParameters?: Record<string, string>; body?: unknown },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const route = routeFor(name);
  const pathParameters = request.pathParameters ?? {};
  const event = httpEvent({
    route,
    rawPath: route.path.replace(/\{(\w+)\}/g, (_m, param: string) =>
      encodeURIComponent(pathParameters[param] ?? ''),
    ),
    rawQueryString: '',
    headers: {
      host: 'bundle.test',
      'user-agent': 'lambda-bundle-test',
      authorization: `Bearer ${key}`,
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    query: {},
    pathParameters,
    body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
  const handler = await load(name);
  const response = await handler(event, lambdaContext(name, event.requestContext.requestId));
  return {
    status: response.statusCode ?? 0,
    body: response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {},
  };
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'lambda-bundle-test-'));
  for (const [name, entry] of Object.entries(HANDLERS) as [Bundled, string][]) {
    bundles.set(name, await bundle(name, entry));
  }
});

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

describe('Lambda bundles', () => {
  it.each(Object.keys(HANDLERS) as Bundled[])(
    '%s bundles ElectroDB with the AWS SDK document client instead of taking the SDK from the runtime',
    (name) => {
      // Prepare
      const inputs = bundles.get(name)?.inputs ?? [];
      // Act
      const electrodb = inputs.some((input) => input.includes('node_modules/electrodb/'));
      const missing = BUNDLED_SDK.filter(
        (pkg) => !inputs.some((input) => input.includes(`node_modules/${pkg}/`)),
      );
      // Assess
      expect(electrodb).toBe(true);
      expect(missing).toEqual([]);
    },
  );

  it.each(Object.keys(HANDLERS) as Bundled[])(
    '%s loads its own route row, not the route table, and no SDK client it only imports on use',
    (name) => {
      // Prepare
      const inputs = bundles.get(name)?.inputs ?? [];
      // Act
      const routeTable = inputs.filter((input) =>
        /^functions\/(routes\.ts|http\/[^/]+\/routes\.ts)$/.test(input),
      );
      const lazyClients = inputs.filter((input) =>
        /node_modules\/@aws-sdk\/client-(secrets-manager|sqs|sesv2|bedrock-runtime|scheduler)\//.test(input),
      );
      // Assess
      expect(routeTable).toEqual([]);
      expect(lazyClients).toEqual([]);
    },
  );

  it('creates a listing through the bundled createProperty and reads it through the bundled getProperty', async () => {
    // Prepare
    const tenant = await createTestTenant();
    const { key } = await tenant.newKey(['properties:write', 'properties:read']);
    // Act
    const created = await invoke('createProperty', key, { body: { title: 'Bundled Villa' } });
    const read = await invoke('getProperty', key, {
      pathParameters: { property_id: String(created.body.id) },
    });
    // Assess
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toMatchObject({ id: created.body.id, title: 'Bundled Villa' });
  });
});
