import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../client.ts';

/** Every entity belongs to this ElectroDB service; `version` is per entity. */
export const SERVICE = 'lls';

/** Keys are written exactly as built (ids and references are case-sensitive). */
export const asIs = { casing: 'none' } as const;

export function entityConfig(): { client: DynamoDBDocumentClient; table: string } {
  return { client: dynamo(), table: tableName() };
}

export const timestamps = {
  createdAt: { type: 'string', required: true, readOnly: true },
  updatedAt: { type: 'string', required: true },
} as const;
