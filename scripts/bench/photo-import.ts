/**
 * The photos section of the bench (issue 11): a 5 MB JPEG imported by URL from a local HTTP server,
 * timed from the API request to the import being ready (p50), with the API server and the import
 * worker of `npm start` run in-process (the worker on the table-backed local queue), the photo bucket
 * played by s3rver; and the worker's peak memory, read as the maximum resident set size of a fresh
 * process that runs the worker on one such import (`photo-import-child.ts`), beside the same
 * process's size once its modules are loaded. Every functions/ module is imported dynamically:
 * main.ts sets the environment and binds the local adapters first.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { jpegFile } from '../../test/support/image-files.ts';
import { LOCAL_PHOTO_BUCKET, LOCAL_S3_CORS } from '../local/adapters/local-photo-store.ts';
import { runJsonChild } from './child-json.ts';
import type { RenditionFigures } from './renditions.ts';
import { percentile, round } from './stats.ts';

export interface PhotosSection {
  fileBytes: number;
  samples: number;
  /** API request → import ready, in ms. */
  p50Ms: number;
  p90Ms: number;
  maxMs: number;
  /** The worker process's peak resident set size over one import, and after loading its modules. */
  workerPeakRssMb: number;
  workerBaselineRssMb: number;
  /** The renditions of a camera-sized JPEG and a large PNG: time and peak memory per photo. */
  renditions?: RenditionFigures[];
}

/** A 5 MB JPEG: a 4000×3000 frame after 5 MB of comment segments (its size sits past the start). */
const PHOTO = jpegFile(4000, 3000, 5 * 1024 * 1024);

export async function measurePhotoImport(options: {
  tenantId: string;
  samples: number;
  log: (line: string) => void;
}): Promise<PhotosSection> {
  const s3Dir = mkdtempSync(join(tmpdir(), 'lls-bench-s3-'));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory: s3Dir,
    silent: true,
    configureBuckets: [{ name: LOCAL_PHOTO_BUCKET, configs: [LOCAL_S3_CORS] }],
  });
  const { port: s3Port } = await s3.run();
  const origin = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': PHOTO.length }).end(PHOTO);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
  const originUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  // The source is on 127.0.0.1: the local switch (refused inside Lambda).
  Object.assign(process.env, { LOCAL_ALLOW_PRIVATE_URLS: '1', S3_ENDPOINT: `http://127.0.0.1:${s3Port}` });
  const { setPhotoStore } = await import('../../functions/kernel/ports/photo-store.ts');
  const { localPhotoStore } = await import('../local/adapters/local-photo-store.ts');
  setPhotoStore(localPhotoStore());

  const { issueApiKey } = await import('../../functions/services/api-keys.ts');
  const { secret } = await issueApiKey({
    tenantId: options.tenantId,
    name: 'bench-photos',
    scopes: ['properties:write'],
  });
  const { startApiServer } = await import('../local/server.ts');
  const { startQueuePoller } = await import('../local/queue-poller.ts');
  const { handler: worker } = await import('../../functions/workers/image-import.ts');
  const { server, url } = await startApiServer({ port: 0 });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const poller = startQueuePoller({ queue: 'images', handler: worker, intervalMs: 20 });
  try {
    const listing = await call('POST', '/v1/properties', { title: 'Bench photo flat' });
    const propertyId = String(listing.id);
    options.log(
      `  photos: ${options.samples} imports of a ${round(PHOTO.length / 1048576, 1)} MB JPEG, request → ready…`,
    );
    const timings: number[] = [];
    for (let i = 0; i < options.samples; i++) {
      const started = performance.now();
      const requested = await call('POST', `/v1/properties/${propertyId}/images:import`, {
        url: `${originUrl}/photo-${i}.jpg`,
      });
      for (;;) {
        const state = await call('GET', `/v1/properties/${propertyId}/images:import/${String(requested.id)}`);
        if (state.status === 'ready') break;
        if (state.status === 'failed') throw new Error(`bench import failed: ${JSON.stringify(state)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      timings.push(performance.now() - started);
      // Keep the gallery under its 100 photos, whatever --samples says.
      if ((i + 1) % 90 === 0) {
        const current = await call('GET', `/v1/properties/${propertyId}`);
        for (const image of current.images as { id: string }[]) {
          await fetch(`${url}/v1/properties/${propertyId}/images/${image.id}`, {
            method: 'DELETE',
            headers: { authorization: `Bearer ${secret}` },
          });
        }
      }
    }

    // Peak memory: one more import, its message run by the worker in a fresh process.
    poller.stop();
    const requested = await call('POST', `/v1/properties/${propertyId}/images:import`, {
      url: `${originUrl}/photo-peak.jpg`,
    });
    const memory = await runWorkerChild({
      tenantId: options.tenantId,
      propertyId,
      importId: String(requested.id),
    });
    const state = await call('GET', `/v1/properties/${propertyId}/images:import/${String(requested.id)}`);
    if (state.status !== 'ready')
      throw new Error(`bench: the worker process left the import ${String(state.status)}`);
    const sorted = [...timings].sort((a, b) => a - b);
    const section: PhotosSection = {
      fileBytes: PHOTO.length,
      samples: timings.length,
      p50Ms: round(percentile(sorted, 50), 1),
      p90Ms: round(percentile(sorted, 90), 1),
      maxMs: round(sorted.at(-1) ?? 0, 1),
      workerPeakRssMb: round(memory.peakRssKb / 1024, 1),
      workerBaselineRssMb: round(memory.baselineRssKb / 1024, 1),
    };
    options.log(
      `  photos: p50 ${section.p50Ms} ms; worker peak RSS ${section.workerPeakRssMb} MB (${section.workerBaselineRssMb} MB loaded)`,
    );
    return section;
  } finally {
    poller.stop();
    server.closeAllConnections();
    server.close();
    origin.close();
    await s3.close().catch(() => undefined);
    rmSync(s3Dir, { recursive: true, force: true });
    // The S3 is gone: the later sections (site, tenants) start their own rather than call this one.
    delete process.env.S3_ENDPOINT;
    setPhotoStore(undefined);
  }
}

/** Runs photo-import-child.ts on one import message; its answer is its own memory figures. */
function runWorkerChild(message: {
  tenantId: string;
  propertyId: string;
  importId: string;
}): Promise<{ peakRssKb: number; baselineRssKb: number }> {
  return runJsonChild<{ peakRssKb: number; baselineRssKb: number }>('photo-import-child.ts', {
    type: 'import',
    attempt: 1,
    ...message,
  });
}
