import { setEnrichmentProvider } from '../../../functions/kernel/ports/ai-provider.ts';
import { setCatalogueStore } from '../../../functions/kernel/ports/catalogue-store.ts';
import { setEmails } from '../../../functions/kernel/ports/email.ts';
import { NoPhotoCdn, setPhotoCdn } from '../../../functions/kernel/ports/photo-cdn.ts';
import { setPhotoStore } from '../../../functions/kernel/ports/photo-store.ts';
import { setQueue } from '../../../functions/kernel/ports/queue.ts';
import { LocalScoringProvider, setScoringProvider } from '../../../functions/kernel/ports/scoring.ts';
import { setWebhookLadder } from '../../../functions/kernel/ports/webhook-ladder.ts';
import { LocalEnrichmentProvider } from './local-ai.ts';
import { localCatalogueStore } from './local-catalogue-store.ts';
import { localPhotoStore } from './local-photo-store.ts';
import { LocalQueue } from './local-queue.ts';
import { OutboxEmailPort } from './outbox-email.ts';
import { LocalWebhookLadder } from './webhook-ladder.ts';

/**
 * A cursor key for the local stack and the tests only; Lambda reads its key from Secrets Manager
 * (CURSOR_SECRET_ARN) and has no default.
 */
export const LOCAL_CURSOR_SECRET = 'local-stack-cursor-secret-not-for-aws';

/**
 * Binds the local adapters of every port: the table-backed queue, the outbox, the deterministic
 * enrichment provider, the rule-based scorer, the webhook ladder on the local queue, the photo
 * store and the catalogue snapshots on the local S3, and no photo CDN. Called by the local stack (`npm start`), the bench and the test setup;
 * Lambda never calls it: each Lambda entry binds the AWS adapters its row `uses` (lib/bundling.ts).
 */
export function bindLocalAdapters(): void {
  setQueue(new LocalQueue());
  setEmails(new OutboxEmailPort());
  setEnrichmentProvider(new LocalEnrichmentProvider());
  setScoringProvider(new LocalScoringProvider());
  setWebhookLadder(new LocalWebhookLadder());
  // The local S3 of `npm start` and the tests (S3_ENDPOINT); without one, the photo routes say so.
  setPhotoStore(process.env.S3_ENDPOINT ? localPhotoStore() : undefined);
  // No CDN: the local S3 serves photos itself and answers 404 once a file is deleted.
  setPhotoCdn(new NoPhotoCdn());
  // The catalogue snapshots, on the same local S3; without one, every cold catalogue reads the table.
  setCatalogueStore(process.env.S3_ENDPOINT ? localCatalogueStore() : undefined);
}
