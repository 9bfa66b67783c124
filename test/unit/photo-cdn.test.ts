/**
 * The photo CDN (functions/kernel/ports/photo-cdn.ts) at the SDK edge: a deleted photo's paths are
 * invalidated on the photo distribution, a repeat names the same invalidation, and CloudFront's
 * limit on invalidations in progress is an error the queue retries.
 */
import {
  CloudFrontClient,
  CloudFrontServiceException,
  CreateInvalidationCommand,
} from '@aws-sdk/client-cloudfront';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { CdnBusyError, CloudFrontPhotoCdn } from '../../functions/kernel/ports/photo-cdn.ts';

const cloudfront = mockClient(CloudFrontClient);
const cdn = () =>
  new CloudFrontPhotoCdn({
    distributionId: 'E2QWRUHEXAMPLE',
    client: { region: 'us-east-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } },
  });

beforeEach(() => {
  cloudfront.reset();
});
afterAll(() => {
  cloudfront.restore();
});

describe('CloudFrontPhotoCdn.invalidate', () => {
  it('invalidates the paths on the distribution, under a caller reference derived from them', async () => {
    // Prepare
    cloudfront.on(CreateInvalidationCommand).resolves({});
    const paths = ['/images/t/p/abc-*', '/images/t/p/old.jpg'];
    // Act
    await cdn().invalidate(paths);
    await cdn().invalidate([...paths].reverse());
    await cdn().invalidate(['/images/t/p/other-*']);
    await cdn().invalidate([]);
    // Assess
    const inputs = cloudfront.commandCalls(CreateInvalidationCommand).map((c) => c.args[0].input);
    expect(inputs).toHaveLength(3);
    expect(inputs[0]).toEqual({
      DistributionId: 'E2QWRUHEXAMPLE',
      InvalidationBatch: {
        CallerReference: expect.stringMatching(/^[0-9a-f]{32}$/),
        Paths: { Quantity: 2, Items: ['/images/t/p/abc-*', '/images/t/p/old.jpg'] },
      },
    });
    expect(inputs[1]?.InvalidationBatch?.CallerReference).toBe(inputs[0]?.InvalidationBatch?.CallerReference);
    expect(inputs[2]?.InvalidationBatch?.CallerReference).not.toBe(
      inputs[0]?.InvalidationBatch?.CallerReference,
    );
  });

  it('says the CDN is busy when too many invalidations are in progress, and passes other errors on', async () => {
    // Prepare
    const refusal = (name: string, status: number) =>
      new CloudFrontServiceException({
        name,
        $fault: 'client',
        message: name,
        $metadata: { httpStatusCode: status },
      });
    cloudfront.on(CreateInvalidationCommand).callsFake((input) => {
      const [path] = input.InvalidationBatch.Paths.Items;
      throw path === '/images/busy-*'
        ? refusal('TooManyInvalidationsInProgress', 400)
        : refusal('AccessDenied', 403);
    });
    // Act
    const busy = cdn().invalidate(['/images/busy-*']);
    const denied = cdn().invalidate(['/images/denied-*']);
    // Assess
    await expect(busy).rejects.toBeInstanceOf(CdnBusyError);
    await expect(denied).rejects.toThrow(/AccessDenied/);
  });
});
