import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { issueSiteKey } from '../../functions/services/site-keys.ts';

/**
 * The publishable key the example site at /site/ uses on every start. Only a key's hash is in the
 * table, so the key itself is kept beside the data (a publishable key is not secret: every page that
 * uses it shows it): the one the seed just made, else the one kept, else a new one for
 * http://localhost (a data directory from before this file existed).
 */
export async function demoSiteKey(dataDir: string, tenantId: string, justCreated?: string): Promise<string> {
  const file = resolve(dataDir, 'demo-site-key');
  if (justCreated) {
    writeFileSync(file, `${justCreated}\n`);
    return justCreated;
  }
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const { key } = await issueSiteKey({ tenantId, origins: 'http://localhost', name: 'demo-website' });
  writeFileSync(file, `${key}\n`);
  return key;
}
