import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.ts';
import { buildOpenApi, readmeWithRoutes } from '../../scripts/openapi.ts';

describe('generated docs', () => {
  it('docs/openapi.json is what the route table and schemas generate (run npm run openapi)', async () => {
    // Act
    const generated = await buildOpenApi();
    // Assess
    expect(JSON.parse(readFileSync('docs/openapi.json', 'utf8'))).toEqual(generated);
  });

  it('documents every route of the route table exactly once', async () => {
    const doc = (await buildOpenApi()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('the README route table is current', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readmeWithRoutes(readme)).toBe(readme);
  });
});
