/**
 * `npm run -s admin -- photos render --tenant SLUG` (or `--all`): the photos stored before renditions
 * existed (one served file under `images/`, its camera metadata in it) get their renditions, their
 * original moves to `originals/` and the old file stops being served. Stopped halfway, a run resumes
 * where it stopped; run again, it finds nothing to do. On DynamoDB Local and the local S3, the CLI
 * spawned as `npm run` runs it, and in-process for the interrupted run.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { Agent, fetch as undiciFetch } from 'undici';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { galleryOf } from '../../functions/data/listing-images.ts';
import { getListing } from '../../functions/data/listings.ts';
import { getTenant } from '../../functions/data/tenants.ts';
import { addToGallery, type GalleryImage, imageKey, renditionUrl } from '../../functions/domain/images.ts';
import { photoStore } from '../../functions/kernel/ports/photo-store.ts';
import { changeGallery } from '../../functions/services/listing-images.ts';
import { createListing } from '../../functions/services/listings.ts';
import { renderStoredPhotos } from '../../functions/services/photo-processing.ts';
import { parseArgs } from '../../scripts/admin/args.ts';
import { commands } from '../../scripts/admin/commands.ts';
import { cameraJpeg, exifTags } from '../../scripts/local/camera-photos.ts';
import { runAdminCli } from '../support/cli.ts';
import { createTestTenant } from '../support/factories.ts';

vi.setConfig({ testTimeout: 180_000 });

const freshConnections = new Agent({ pipelining: 0 });
const fromS3 = (url: string) => undiciFetch(url, { dispatcher: freshConnections });

let photo: Buffer;
beforeAll(async () => {
  photo = await cameraJpeg({ width: 1500, height: 1000 });
});

/**
 * A Tenant whose listings hold photos as they were stored before renditions: the file as uploaded
 * under `images/` (served as it is), the gallery entry without renditions. `missing` photos have no
 * file at all.
 */
async function tenantWithStoredPhotos(perListing: number[], missing = 0) {
  const { tenantId } = await createTestTenant();
  const tenant = (await getTenant(tenantId))!;
  const listings: string[] = [];
  const store = photoStore();
  for (const [n, count] of perListing.entries()) {
    const { record } = await createListing(
      { tenant, name: 'test', via: 'api' },
      { title: `House ${n}` },
      undefined,
    );
    listings.push(record.id);
    for (let i = 0; i < count + (n === 0 ? missing : 0); i++) {
      const id = randomUUID();
      const key = imageKey(tenantId, record.id, id, 'image/jpeg');
      if (i < count) await store.put(key, photo, 'image/jpeg', 'public, max-age=3600, s-maxage=600');
      const old: Omit<GalleryImage, 'sortOrder' | 'isPrimary'> = {
        id,
        key,
        url: store.publicUrl(key),
        width: 1500,
        height: 1000,
        contentType: 'image/jpeg',
        sizeBytes: photo.length,
        createdAt: new Date().toISOString(),
      };
      await changeGallery(tenantId, record.id, 'test', (images) => ({
        images: addToGallery(images, old, {}),
        result: null,
      }));
    }
  }
  return { tenantId, slug: tenant.slug, listings };
}

async function galleries(tenantId: string, listings: string[]) {
  return (await Promise.all(listings.map(async (id) => galleryOf((await getListing(tenantId, id))!)))).flat();
}

describe('admin photos render', () => {
  it('renders every stored photo of the Tenant (npm run), moves its original out of sight, and finds nothing to do when run again', async () => {
    // Prepare
    const { tenantId, slug, listings } = await tenantWithStoredPhotos([2, 1], 1);
    const before = await galleries(tenantId, listings);
    expect((await fromS3(before[0]!.url)).status).toBe(200);
    // Act
    const first = await runAdminCli(
      { ...process.env, LOG_LEVEL: 'ERROR' },
      'photos',
      'render',
      '--tenant',
      slug,
    );
    const again = await runAdminCli(
      { ...process.env, LOG_LEVEL: 'ERROR' },
      'photos',
      'render',
      '--tenant',
      slug,
    );
    // Assess
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ tenant: slug, listings: 2, photos: 4, rendered: 3 });
    expect(report.skipped).toEqual([
      expect.objectContaining({ propertyId: listings[0], reason: 'its file is missing from the bucket' }),
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({ listings: 1, photos: 1, rendered: 0 });
    const after = await galleries(tenantId, listings);
    const rendered = after.filter((i) => i.renditions?.length);
    expect(rendered.map((i) => i.id).sort()).toEqual(
      before
        .map((i) => i.id)
        .filter((id) => id !== report.skipped[0].imageId)
        .sort(),
    );
    for (const image of rendered) {
      const old = before.find((i) => i.id === image.id)!;
      expect(image.key).toMatch(/^originals\//);
      expect(image).toMatchObject({
        contentType: 'image/jpeg',
        width: 1024,
        height: 683,
        sortOrder: old.sortOrder,
      });
      // The old file is no longer served; each rendition is, without the camera's metadata.
      expect((await fromS3(old.url)).status).toBe(404);
      for (const r of image.renditions!) {
        const res = await fromS3(renditionUrl(image.url, r.file));
        expect(res.status).toBe(200);
        const metadata = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        expect(exifTags(metadata.exif).gps.size).toBe(0);
      }
      expect(await photoStore().read(image.key)).toEqual(photo);
    }
  });

  it('resumes a run stopped halfway: the photos rendered stay, the rest are rendered next time, none twice', async () => {
    // Prepare: a run that stops (as on Ctrl-C) once its first listing's two photos are done.
    const { tenantId, listings } = await tenantWithStoredPhotos([2, 2]);
    const stopped = renderStoredPhotos(tenantId, (done) => {
      if (done === 3) throw new Error('stopped');
    });
    await expect(stopped).rejects.toThrow('stopped');
    const halfway = (await galleries(tenantId, listings)).filter((i) => i.renditions?.length);
    // Act
    const resumed = await renderStoredPhotos(tenantId);
    // Assess
    expect(halfway).toHaveLength(2);
    expect(resumed).toMatchObject({ listings: 1, photos: 2, rendered: 2, skipped: [] });
    const after = await galleries(tenantId, listings);
    expect(after.filter((i) => i.renditions?.length)).toHaveLength(4);
    // The first two kept the renditions of the first run.
    for (const image of halfway) expect(after.find((i) => i.id === image.id)).toEqual(image);
  });

  it('takes --tenant SLUG or --all, not both and not neither', async () => {
    // Prepare
    const run = (...args: string[]) =>
      commands['photos render']!.run(parseArgs(args).flags, () => () => undefined);
    // Act + Assess
    await expect(run()).rejects.toThrow(/--tenant SLUG or --all/);
    await expect(run('--tenant', 'x', '--all')).rejects.toThrow(/--tenant SLUG or --all/);
  });
});
