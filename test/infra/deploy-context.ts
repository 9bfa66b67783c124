/**
 * The required deploy parameters, as `npx cdk synth -c emailFrom=… -c alarmEmail=…` passes them: every
 * infrastructure test builds the app with them (cdk.json holds none, so that a deploy without them fails).
 */
export const DEPLOY_CONTEXT = {
  emailFrom: 'no-reply@example.com',
  alarmEmail: 'ops@example.com',
} as const;
