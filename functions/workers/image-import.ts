import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { logger } from '../kernel/logger.ts';
import { withMetrics } from '../kernel/metrics.ts';
import '../kernel/zod.ts';
import { runImport, runPurge } from '../services/photo-processing.ts';

/** What the photo queue carries: one attempt of one photo import (by URL or of a confirmed upload). */
export const ImageImportMessage = z.object({
  type: z.literal('import'),
  tenantId: z.string(),
  propertyId: z.string(),
  importId: z.string(),
  attempt: z.number().check(z.int(), z.gte(1)),
});

/** A deleted photo: its files (deleted again) and its CDN paths to invalidate. */
export const PhotoPurgeMessage = z.object({
  type: z.literal('purge'),
  tenantId: z.string(),
  propertyId: z.string(),
  keys: z.array(z.string().check(z.regex(/^(images|originals)\//))),
  paths: z.array(z.string().check(z.startsWith('/images/'))),
});

const PhotoQueueMessage = z.discriminatedUnion('type', [ImageImportMessage, PhotoPurgeMessage]);

/**
 * The photo import worker (SQS in AWS, the local queue in `npm start`): fetches each import's URL
 * through the SSRF-safe connector (or reads a confirmed upload's original), makes the photo's
 * renditions with sharp, stores them and adds the photo to the gallery; and invalidates a deleted
 * photo's CDN paths. A file that cannot be imported ends its import as failed (no retry); a malformed
 * message is dropped; an unexpected error (storage, table, a busy CDN) is a batch item failure, so
 * only that message is retried and, after five receives, dead-lettered.
 */
async function handlePhotoMessages(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message: z.infer<typeof PhotoQueueMessage>;
    try {
      message = PhotoQueueMessage.parse(JSON.parse(record.body));
    } catch (error) {
      logger.error('dropping malformed image import message', {
        messageId: record.messageId,
        error: error as Error,
      });
      continue;
    }
    try {
      if (message.type === 'import') await runImport(message);
      else await runPurge(message);
    } catch (error) {
      logger.error(message.type === 'import' ? 'image import failed unexpectedly' : 'photo purge failed', {
        messageId: record.messageId,
        error: error as Error,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = withMetrics(handlePhotoMessages);
