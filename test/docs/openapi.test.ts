import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { routes } from '../../functions/routes.ts';
import { buildOpenApi, GENERATED_TABLES_PAGE, withGeneratedTables } from '../../scripts/openapi.ts';

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

  it(`the route and worker tables of ${GENERATED_TABLES_PAGE} are current (run npm run openapi)`, () => {
    const page = readFileSync(GENERATED_TABLES_PAGE, 'utf8');
    expect(withGeneratedTables(page)).toBe(page);
  });

  it("passes Redocly's recommended rules with no error and no warning (license included)", async () => {
    // Act: the CLI as installed (offline: no telemetry, no update check, no remote config)
    const { stdout } = await promisify(execFile)(
      'node_modules/.bin/redocly',
      ['lint', 'docs/openapi.json', '--format=json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    // Assess
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: unknown[];
    };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);
});
