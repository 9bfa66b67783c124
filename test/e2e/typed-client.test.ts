import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTenant, type TestTenant, unique } from '../support/factories.ts';
import { startTestApi, type TestApi } from '../support/http.ts';

const run = promisify(execFile);

/** What an integrator writes with the types generated from docs/openapi.json (see docs/getting-started.md). */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function createThenFind(baseUrl: string, key: string, name: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const created = await client.POST('/v1/leads', { body: { name, email: ' Ana@Example.com ' } });
  if (created.error) throw new Error(\`POST \${created.response.status}: \${JSON.stringify(created.error)}\`);
  const id: string = created.data.id;
  const found = await client.GET('/v1/leads/{lead_id}', { params: { path: { lead_id: id } } });
  if (found.error) throw new Error(\`GET \${found.response.status}: \${JSON.stringify(found.error)}\`);
  const missing = await client.GET('/v1/leads/{lead_id}', {
    params: { path: { lead_id: '00000000-0000-4000-8000-000000000000' } },
  });
  // An error body is the union of the documented ones: {detail: string}, or the 422 item list.
  const detail = missing.error?.detail;
  return { id, name: found.data.name, email: found.data.email, missing: missing.response.status, detail };
}
`;

let api: TestApi;
let tenant: TestTenant;
let dir: string;

beforeAll(async () => {
  tenant = await createTestTenant();
  api = await startTestApi(tenant.key);
  // Inside the project (not node_modules) so that openapi-fetch resolves and vitest transforms it.
  dir = await mkdtemp('test/.typed-client-');
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a typed client generated from docs/openapi.json', () => {
  it('compiles with openapi-typescript types and runs against the local API', async () => {
    // Prepare: generate the types and write the client, as docs/getting-started.md says
    await run('node_modules/.bin/openapi-typescript', ['docs/openapi.json', '-o', `${dir}/api.d.ts`]);
    await writeFile(`${dir}/client.ts`, CLIENT);
    // Act 1: it type-checks strictly (a wrong field or path would not)
    await run('node_modules/.bin/tsc', [
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      `${dir}/client.ts`,
    ]);
    // Act 2: it runs
    const { createThenFind } = (await import(
      /* @vite-ignore */ pathToFileURL(resolve(dir, 'client.ts')).href
    )) as {
      createThenFind: (baseUrl: string, key: string, name: string) => Promise<Record<string, unknown>>;
    };
    const name = unique('Typed Client');
    const result = await createThenFind(api.url, tenant.key, name);
    // Assess
    expect(result).toMatchObject({ name, email: 'ana@example.com', missing: 404 });
    expect(result.detail).toEqual(expect.any(String));
  }, 120_000);
});
