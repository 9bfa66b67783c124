import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { logger } from '../kernel/logger.ts';
import { withMetrics } from '../kernel/metrics.ts';
import '../kernel/zod.ts';
import { runImport } from '../services/image-imports.ts';

/** What the import queue carries: one fetch attempt of one photo import. */
export const ImageImportMessage = z.object({
  type: z.literal('import'),
  tenantId: z.string(),
  propertyId: z.string(),
  importId: z.string(),
  attempt: z.number().check(z.int(), z.gte(1)),
});

/**
 * The photo import worker (SQS in AWS, the local queue in `npm start`): fetches each import's URL
 * through the SSRF-safe connector, checks the file, stores it and adds it to the gallery. A file
 * that cannot be imported ends its import as failed (no retry); a malformed message is dropped; an
 * unexpected error (storage, table) is a batch item failure, so only that message is retried and,
 * after five receives, dead-lettered.
 */
async function handleImageImports(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let message: z.infer<typeof ImageImportMessage>;
    try {
      message = ImageImportMessage.parse(JSON.parse(record.body));
    } catch (error) {
      logger.error('dropping malformed image import message', {
        messageId: record.messageId,
        error: error as Error,
      });
      continue;
    }
    try {
      await runImport(message);
    } catch (error) {
      logger.error('image import failed unexpectedly', {
        messageId: record.messageId,
        error: error as Error,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

export const handler = withMetrics(handleImageImports);
