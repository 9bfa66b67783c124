/**
 * The cold-start floor: the least a handler of this service can be. One SDK
 * `DynamoDBDocumentClient` over `DynamoDBClient`, one ElectroDB entity, one `zod/mini` schema,
 * middy, one GetItem, an API Gateway v2 answer. The bench bundles it with the deployed esbuild
 * settings and judges every function's module load and first response against it.
 *
 * Like the service's functions it reads its table from TABLE_NAME and leaves the endpoint to the
 * SDK (AWS_ENDPOINT_URL_DYNAMODB locally, the regional endpoint in Lambda).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import * as z from 'zod/mini';
import { floorListing } from './listing.ts';

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
