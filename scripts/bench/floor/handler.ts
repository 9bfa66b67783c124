/**
 * The cold-start floor: the least a handler of this service can be (one SDK DynamoDBDocumentClient,
 * one ElectroDB entity, one `zod/mini` schema, middy, one GetItem). Like the service's functions it
 * reads its table from TABLE_NAME and leaves the endpoint to the SDK.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { Entity } from 'electrodb';
import * as z from 'zod/mini';

/**
 * The floor's one ElectroDB entity: a small listing on the service's table key layout (`pk`/`sk`).
 * The bench seeds the item the handler reads through it too.
 */
export function floorListing(options: { table: string; client?: unknown }) {
  return new Entity(
    {
      model: { service: 'bench', entity: 'floorListing', version: '1' },
      attributes: {
        id: { type: 'string', required: true },
        title: { type: 'string', required: true },
        price: { type: 'string' },
        updatedAt: { type: 'string', required: true },
      },
      indexes: {
        byId: {
          // ElectroDB's own key format: nothing in the service's key space starts with `$bench`.
          pk: { field: 'pk', composite: ['id'] },
          sk: { field: 'sk', composite: [] },
        },
      },
    },
    // ElectroDB types its client loosely as well; the handler passes a DynamoDBDocumentClient.
    { table: options.table, ...(options.client ? { client: options.client as never } : {}) },
  );
}

const FloorPath = z.object({ listing_id: z.string().check(z.minLength(1), z.maxLength(64)) });

let listing: ReturnType<typeof floorListing> | undefined;

/** One client per container, created on first use, as the service does. */
function listings(): ReturnType<typeof floorListing> {
  listing ??= floorListing({
    table: process.env.TABLE_NAME ?? 'listings-leads',
    client: DynamoDBDocumentClient.from(new DynamoDBClient({})),
  });
  return listing;
}

async function getListing(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const path = FloorPath.safeParse(event.pathParameters ?? {});
  if (!path.success) {
    return { statusCode: 422, body: JSON.stringify({ detail: path.error.issues }) };
  }
  const { data } = await listings().get({ id: path.data.listing_id }).go();
  if (!data) return { statusCode: 404, body: JSON.stringify({ detail: 'Not found' }) };
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: data.id, title: data.title, price: data.price ?? null }),
  };
}

export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(getListing);
