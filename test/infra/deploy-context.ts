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
