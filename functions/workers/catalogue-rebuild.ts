import { logger } from '../kernel/logger.ts';
import { runDueCatalogueRebuilds } from '../services/catalogue-rebuild.ts';

/**
 * Runs every minute (EventBridge schedule in AWS, every few seconds in `npm start`): rewrites the
 * catalogue snapshot of each Tenant whose listings changed (the stream consumer marks it, debounced:
 * services/catalogue-snapshot.ts), from its previous snapshot and the changes since.
 */
export async function handler(): Promise<{ rebuilt: number }> {
  const rebuilt = await runDueCatalogueRebuilds();
  if (rebuilt.length) logger.info('catalogue snapshots rebuilt', { rebuilt });
  return { rebuilt: rebuilt.length };
}
