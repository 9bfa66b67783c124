import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetConfig } from '../../functions/kernel/config.ts';
import {
  bindAwsAdapter as bindAwsEnrichment,
  enrichmentProvider,
  setEnrichmentProvider,
} from '../../functions/kernel/ports/ai-provider.ts';
import { awsPortModules } from '../../functions/kernel/ports/aws-bindings.ts';
import { BedrockEnrichmentProvider } from '../../functions/kernel/ports/bedrock-ai.ts';
import {
  bindAwsAdapter as bindAwsEmails,
  emails,
  SesEmail,
  setEmails,
} from '../../functions/kernel/ports/email.ts';
import {
  bindAwsAdapter as bindAwsPhotoStore,
  photoStore,
  S3PhotoStore,
  setPhotoStore,
} from '../../functions/kernel/ports/photo-store.ts';
import { bindAwsAdapters, definePort } from '../../functions/kernel/ports/port.ts';
import {
  bindAwsAdapter as bindAwsQueue,
  queue,
  SqsQueue,
  setQueue,
} from '../../functions/kernel/ports/queue.ts';
import {
  BedrockScoringProvider,
  bindAwsAdapter as bindAwsScoring,
  scoringProvider,
  setScoringProvider,
} from '../../functions/kernel/ports/scoring.ts';
import {
  AwsWebhookLadder,
  bindAwsAdapter as bindAwsLadder,
  setWebhookLadder,
  webhookLadder,
} from '../../functions/kernel/ports/webhook-ladder.ts';
import type { RouteDefinition, RouteUse } from '../../functions/pipeline/route.ts';
import { esbuildOptions, HANDLER_FILE, lambdaEntrySource } from '../../lib/bundling.ts';
import { bindLocalAdapters } from '../../scripts/local/adapters/index.ts';
import { LocalQueue } from '../../scripts/local/adapters/local-queue.ts';

const AWS_SETTINGS = {
  AI_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/ai',
  EMAIL_FROM: 'noreply@agency.example',
  AI_MODEL_ID: 'eu.amazon.nova-lite-v1:0',
  PHOTO_BUCKET: 'listings-leads-photos',
  PHOTO_BASE_URL: 'https://photos.agency.example',
  WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks',
};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(values)) vi.stubEnv(name, value);
  resetConfig();
}

function unbindAll(): void {
  setQueue(undefined);
  setEmails(undefined);
  setEnrichmentProvider(undefined);
  setScoringProvider(undefined);
  setPhotoStore(undefined);
  setWebhookLadder(undefined);
}

function bindAllAws(): void {
  for (const bind of [
    bindAwsQueue,
    bindAwsEmails,
    bindAwsEnrichment,
    bindAwsScoring,
    bindAwsPhotoStore,
    bindAwsLadder,
  ])
    bind();
}

beforeEach(unbindAll);
afterEach(() => {
  vi.unstubAllEnvs();
  resetConfig();
  bindLocalAdapters();
});

describe('an unbound port', () => {
  it('throws "not bound", even in Lambda with every AWS setting present (no fallback on a variable)', () => {
    // Prepare
    setEnv({ AWS_LAMBDA_FUNCTION_NAME: 'listings-leads-ai-worker', ...AWS_SETTINGS });
    // Act + Assess
    expect(() => queue()).toThrow(/The queue port is not bound/);
    expect(() => emails()).toThrow(/The email port is not bound/);
    expect(() => enrichmentProvider()).toThrow(/The enrichment port is not bound/);
    expect(() => scoringProvider()).toThrow(/The scoring port is not bound/);
    expect(() => photoStore()).toThrow(/The photo store port is not bound/);
    expect(() => webhookLadder()).toThrow(/The webhook ladder port is not bound/);
  });

  it('returns the adapter bound, and throws again once it is unbound', () => {
    // Prepare
    const local = new LocalQueue();
    // Act
    setQueue(local);
    const bound = queue();
    setQueue(undefined);
    // Assess
    expect(bound).toBe(local);
    expect(() => queue()).toThrow(/not bound/);
  });
});

describe('an AWS binding', () => {
  it('builds its adapter on first use only, and once per container', () => {
    // Prepare
    const port = definePort<{ id: number }>('probe');
    const build = vi.fn(() => ({ id: 1 }));
    // Act
    port.bindAws(build);
    const callsBeforeUse = build.mock.calls.length;
    const first = port.get();
    const second = port.get();
    // Assess
    expect(callsBeforeUse).toBe(0);
    expect(build).toHaveBeenCalledTimes(1);
    expect(second).toBe(first);
  });

  it('builds each AWS adapter from its settings when the port is first used', () => {
    // Prepare: bound before the settings exist, as an entry binds before any request
    bindAllAws();
    setEnv(AWS_SETTINGS);
    // Act
    const adapters = [
      queue(),
      emails(),
      enrichmentProvider(),
      scoringProvider(),
      photoStore(),
      webhookLadder(),
    ];
    // Assess
    expect(adapters[0]).toBeInstanceOf(SqsQueue);
    expect(adapters[1]).toBeInstanceOf(SesEmail);
    expect(adapters[2]).toBeInstanceOf(BedrockEnrichmentProvider);
    expect(adapters[3]).toBeInstanceOf(BedrockScoringProvider);
    expect(adapters[4]).toBeInstanceOf(S3PhotoStore);
    expect(adapters[5]).toBeInstanceOf(AwsWebhookLadder);
    expect(queue()).toBe(adapters[0]);
  });

  it('throws on first use while a setting is missing, naming it, and builds once it is set', async () => {
    // Prepare
    setEnv({ AI_QUEUE_URL: undefined, EMAIL_FROM: undefined, AI_MODEL_ID: undefined });
    bindAllAws();
    // Act + Assess
    // A function may send to some queues only: the queue's own setting is required when it sends there.
    await expect(queue().send('ai', {})).rejects.toThrow(/AI_QUEUE_URL is not set/);
    await expect(queue().send('images', {})).rejects.toThrow(/IMAGE_IMPORT_QUEUE_URL is not set/);
    expect(() => photoStore()).toThrow(/PHOTO_BUCKET is not set/);
    expect(() => emails()).toThrow(/EMAIL_FROM is not set/);
    expect(() => enrichmentProvider()).toThrow(/AI_MODEL_ID is not set/);
    expect(() => scoringProvider()).toThrow(/AI_MODEL_ID is not set/);
    expect(() => webhookLadder()).toThrow(/WEBHOOK_QUEUE_URL is not set/);
    setEnv({ EMAIL_FROM: AWS_SETTINGS.EMAIL_FROM });
    expect(emails()).toBeInstanceOf(SesEmail);
  });

  it('names the row of the Lambda entry when a port its uses do not declare is reached', () => {
    // Prepare
    bindAwsAdapters('createLead (functions/http/leads/routes.ts)', [bindAwsQueue]);
    // Act + Assess
    expect(queue()).toBeInstanceOf(SqsQueue);
    expect(() => emails()).toThrow(
      'The email port is not bound in createLead (functions/http/leads/routes.ts): its row does not declare the port in uses',
    );
  });
});

describe('the generated Lambda entry', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'ports-entry-test-'));
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  /** A route row for the fixture handler, declaring `uses`. */
  const row = (uses: readonly RouteUse[]): RouteDefinition => ({
    operationId: 'notifyOwner',
    method: 'POST',
    path: '/v1/notify',
    scope: 'leads:write',
    entry: 'leads/notify-owner.ts',
    summary: 'A fixture',
    tag: 'Leads',
    uses,
  });

  /** Bundles the fixture as deployed (lib/bundling.ts) under `row`, and calls its handler. */
  async function invokeBundled(name: string, route: RouteDefinition): Promise<string> {
    const dir = join(outDir, name);
    await build(esbuildOptions({ module: 'test/unit/fixtures/reaches-email.ts', route }, dir));
    const bundled = (await import(/* @vite-ignore */ pathToFileURL(join(dir, HANDLER_FILE)).href)) as {
      handler: () => Promise<string>;
    };
    return bundled.handler();
  }

  it('binds the ports its row declares in uses, and a port it does not declare fails naming the port and the row', async () => {
    // Prepare
    setEnv({ EMAIL_FROM: AWS_SETTINGS.EMAIL_FROM });
    // Act
    const declared = await invokeBundled('declared', row(['email']));
    const undeclared = invokeBundled('undeclared', row(['aiQueue']));
    // Assess
    expect(declared).toBe('bound');
    await expect(undeclared).rejects.toThrow(
      'The email port is not bound in notifyOwner (functions/http/leads/routes.ts): its row does not declare the port in uses',
    );
  }, 60_000);

  it('imports the AWS binding of exactly the ports of its row, each once', () => {
    // Act
    const aiWorker = lambdaEntrySource({ module: 'functions/workers/ai.ts' });
    const aiResume = lambdaEntrySource({ module: 'functions/workers/ai-resume.ts' });
    const preflight = lambdaEntrySource({ module: 'functions/http/site/preflight.ts' });
    const bound = (source: string) =>
      [
        ...source.matchAll(
          /import \{ bindAwsAdapter as \w+ \} from "\.\/functions\/kernel\/ports\/([\w-]+\.ts)"/g,
        ),
      ]
        .map((match) => match[1])
        .sort();
    // Assess
    expect(bound(aiWorker)).toEqual(['ai-provider.ts', 'queue.ts', 'scoring.ts']);
    expect(aiWorker).toContain('bindAwsAdapters("aiWorker (functions/workers.ts)"');
    expect(bound(aiResume)).toEqual(['queue.ts']);
    expect(aiResume).toContain('bindAwsAdapters("aiResume (functions/workers.ts)"');
    expect(preflight).not.toContain('bindAwsAdapters');
    expect(awsPortModules(['webhookQueue', 'webhookSchedules', 'email'])).toEqual([
      'email.ts',
      'webhook-ladder.ts',
    ]);
  });
});
