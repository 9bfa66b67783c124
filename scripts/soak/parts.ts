/** The soak's moving parts (scripts/soak/part.ts runs one), shared by the driver and the part entry. */

/** The parts and the worker table's rows each one runs (the API is the route table). */
export const SOAK_PARTS = {
  api: [],
  stream: ['streamConsumer'],
  webhooks: ['webhookDelivery', 'webhookSweeper'],
  ai: ['aiWorker', 'aiResume'],
  images: ['imageImport'],
} as const satisfies Record<string, readonly string[]>;

export type SoakPart = keyof typeof SOAK_PARTS;

/** The line a part prints once it serves; the API's carries its URL. */
export const PART_READY = 'soak part ready';

/** Records dropped by the planted loss: every fourth of a batch, acknowledged as processed. */
export function plantedLoss<R>(records: readonly R[]): { kept: R[]; dropped: R[] } {
  const kept: R[] = [];
  const dropped: R[] = [];
  records.forEach((record, i) => {
    (i % 4 === 3 ? dropped : kept).push(record);
  });
  return { kept, dropped };
}
