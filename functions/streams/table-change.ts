/** One table change, decoded: which entity, and its images before and after. */
export interface TableChange {
  /** The stream record's id: the same on every retry of the record. */
  eventId: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  entity: string | undefined;
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}

/**
 * What the consumer does with each change (the events log, a reaction, the webhook fan-out). It
 * throws to fail the record, which is then retried (bounded) and, failing still, handed to the
 * failure destination; so each processor must be safe to run again on the same change.
 */
export type ChangeProcessor = (change: TableChange) => Promise<void>;
