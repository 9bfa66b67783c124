/** One table change, decoded: which entity, and its images before and after. */
export interface TableChange {
  eventId: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  entity: string | undefined;
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}
