import type { TestProject } from 'vitest/node';
import { ensureTable, startDynamoLocal } from '../../scripts/local/dynamo-local.ts';
import { clearAwsOperations } from './aws-operations.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    tableName: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; test files isolate themselves by Tenant. */
export default async function setup(project: TestProject) {
  // This run records afresh what each function does on AWS (test/support/record-aws-operations.ts).
  clearAwsOperations();
  const dynamo = await startDynamoLocal();
  const tableName = 'listings-leads-test';
  await ensureTable(dynamo.endpoint, tableName);
  project.provide('dynamoEndpoint', dynamo.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    await dynamo.stop();
  };
}
