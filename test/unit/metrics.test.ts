import { afterEach, describe, expect, it, vi } from 'vitest';

/** What the module writes to stdout while `act` runs (Powertools writes EMF lines there in Lambda). */
async function stdoutOf(act: () => void | Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await act();
  } finally {
    write.mockRestore();
  }
  return lines.join('').split('\n').filter(Boolean);
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('business metrics (functions/kernel/metrics.ts)', () => {
  it('writes nothing outside Lambda (npm start, tests): no EMF noise', async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', undefined);
    const { BusinessMetric, countMetric, flushMetrics } = await import('../../functions/kernel/metrics.ts');

    // Act
    const lines = await stdoutOf(() => {
      countMetric(BusinessMetric.LeadsCreated);
      flushMetrics();
    });

    // Assess
    expect(lines).toEqual([]);
  });

  it('in Lambda, publishes one EMF line per invocation with every count of it, then starts afresh', async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'createLead');
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'ListingsLeads');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'listings-leads');
    const { BusinessMetric, countMetric, flushMetrics } = await import('../../functions/kernel/metrics.ts');

    // Act
    const first = await stdoutOf(() => {
      countMetric(BusinessMetric.LeadsCreated);
      countMetric(BusinessMetric.AiSpendUsd, 0.0125);
      flushMetrics();
    });
    const idle = await stdoutOf(() => flushMetrics());

    // Assess
    expect(first).toHaveLength(1);
    const emf = JSON.parse(first[0] as string);
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe('ListingsLeads');
    expect(emf._aws.CloudWatchMetrics[0].Dimensions).toEqual([['service']]);
    expect(emf).toMatchObject({ service: 'listings-leads', LeadsCreated: 1, AiSpendUsd: 0.0125 });
    // An invocation that counted nothing writes nothing (not even Powertools' "no metrics" warning).
    expect(idle).toEqual([]);
  });

  it("withMetrics publishes a worker invocation's counts even when it throws", async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'aiWorker');
    const { BusinessMetric, countMetric, withMetrics } = await import('../../functions/kernel/metrics.ts');
    const failing = withMetrics(async () => {
      countMetric(BusinessMetric.AiSpendUsd, 0.5);
      throw new Error('model refused');
    });

    // Act
    let error: unknown;
    const lines = await stdoutOf(async () => {
      error = await failing().catch((e: unknown) => e);
    });

    // Assess
    expect((error as Error).message).toBe('model refused');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ AiSpendUsd: 0.5 });
  });
});
