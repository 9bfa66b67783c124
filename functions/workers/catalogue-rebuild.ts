import { logger } from '../kernel/logger.ts';
import {
  REBUILD_WINDOW_MS,
  runCatalogueRebuildsUntil,
  runDueCatalogueRebuilds,
} from '../services/catalogue-rebuild.ts';

/**
 * Runs every minute (EventBridge schedule in AWS, every few seconds in `npm start`): rewrites the
 * catalogue snapshot of each Tenant whose listings changed (the stream consumer marks it, debounced:
 * services/catalogue-snapshot.ts), from its previous snapshot and the changes since.
 */
export async function handler(event?: { time?: string }): Promise<{ rebuilt: number }> {
  // EventBridge's scheduled event carries the run's time: the run then goes on with the markers that
  // come due before the next one (services/catalogue-rebuild.ts). Without it (the local stack's timer,
  // every few seconds) one pass.
  const scheduledAt = event?.time ? Date.parse(event.time) : Number.NaN;
  const rebuilt = Number.isNaN(scheduledAt)
    ? await runDueCatalogueRebuilds()
    : await runCatalogueRebuildsUntil(new Date(scheduledAt + REBUILD_WINDOW_MS));
  if (rebuilt.length) logger.info('catalogue snapshots rebuilt', { rebuilt });
  return { rebuilt: rebuilt.length };
}
