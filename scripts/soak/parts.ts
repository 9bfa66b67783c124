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

/**
 * The planted loss's choice: every fourth record the stream part is handed (counted across batches,
 * which are small when the traffic is light), acknowledged as processed without being processed.
 */
export function plantedLoss(): <R>(records: readonly R[]) => { kept: R[]; dropped: R[] } {
  let seen = 0;
  return (records) => {
    const kept: (typeof records)[number][] = [];
    const dropped: (typeof records)[number][] = [];
    for (const record of records) {
      seen += 1;
      (seen % 4 === 0 ? dropped : kept).push(record);
    }
    return { kept, dropped };
  };
}
