/**
 * The ports whose AWS adapters each `uses` name of a route row (functions/http/<resource>/routes.ts)
 * or worker row (functions/workers.ts) binds: the Lambda entry that lib/bundling.ts generates for a
 * row imports `bindAwsAdapter` from each module listed under the row's uses, and from no other, so
 * the function loads no adapter it is not granted and a port it forgot throws on use, naming itself
 * and the row. Modules are file names in functions/kernel/ports/, each holding one port.
 *
 * Data only: CDK and the bench read it at bundle time, and it imports nothing.
 */
export const AWS_PORTS_BY_USE = {
  aiQueue: ['queue.ts'],
  imageQueue: ['queue.ts'],
  email: ['email.ts'],
  bedrock: ['ai-provider.ts', 'scoring.ts'],
  webhookQueue: ['webhook-ladder.ts'],
  // The ladder's schedules are the same port as its queue, past 15 minutes.
  webhookSchedules: ['webhook-ladder.ts'],
  photoUpload: ['photo-store.ts'],
  photoConfirm: ['photo-store.ts'],
  photoDelete: ['photo-store.ts'],
  photoImport: ['photo-store.ts'],
  photoCdn: ['photo-cdn.ts'],
  catalogueRead: ['catalogue-store.ts'],
  catalogueWrite: ['catalogue-store.ts'],
} as const satisfies Record<string, readonly string[]>;

/** A `uses` name that binds ports (every `RouteUse` and `WorkerUse`; test/infra/uses.test.ts checks both ways). */
export type AwsUse = keyof typeof AWS_PORTS_BY_USE;

/** The port modules (file names in functions/kernel/ports/) whose AWS adapters `uses` bind, each once. */
export function awsPortModules(uses: readonly AwsUse[]): string[] {
  return [...new Set(uses.flatMap((use) => AWS_PORTS_BY_USE[use]))].sort();
}
