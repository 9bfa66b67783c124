import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { buildApp, type ServiceApp } from '../../lib/app.ts';
import { repoRoot } from '../../lib/constructs/service-function.ts';

/**
 * The required deploy parameters, as `npx cdk synth -c emailFrom=… -c alarmEmail=…` passes them: every
 * infrastructure test builds the app with them (cdk.json holds none, so that a deploy without them fails).
 * The tests' templates are environment-agnostic (no region to pick the default model's inference
 * profile from), so they also name the model: the foundation model, invoked in the stack's region.
 */
export const DEPLOY_CONTEXT = {
  emailFrom: 'no-reply@example.com',
  alarmEmail: 'ops@example.com',
  aiModelId: 'amazon.nova-lite-v1:0',
} as const;

/**
 * The app most infrastructure test files read: `buildApp({ stage: 'test', bundle: false, context:
 * DEPLOY_CONTEXT })` (cdk.json's context and the deploy parameters), built without CDK's built-in
 * CloudFormation validation. test/infra/api.test.ts synthesizes this same app with the
 * validation on, where cdk.json's `validateAgainstDefaultRules` fails the synth on any violation: its
 * templates are validated once a run instead of in every file (the validator's WebAssembly engine
 * starts for each synth, about three quarters of a synth's CPU time). Apps built otherwise (other
 * context, another route table) keep the validation.
 */
export function buildTestApp(): ServiceApp {
  const cdkJson = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const app = new App({
    context: { ...cdkJson.context, ...DEPLOY_CONTEXT },
    builtinCloudFormationValidation: false,
  });
  return buildApp({ app, stage: 'test', bundle: false });
}

let shared: ServiceApp | undefined;

/**
 * {@link buildTestApp}'s app, built once per test worker and shared by the infra files that only read
 * it (the infra project shares its workers' modules: isolate false in vitest.config.ts). A file that
 * changes the app (adds Aspects, constructs) builds its own with buildTestApp().
 */
export function sharedTestApp(): ServiceApp {
  shared ??= buildTestApp();
  return shared;
}
