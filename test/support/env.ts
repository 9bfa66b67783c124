import { inject } from 'vitest';

// Runs before each test file's imports: the data modules read these when they load.
Object.assign(process.env, {
  DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
  TABLE_NAME: inject('tableName'),
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AUTH_CACHE_TTL_SECONDS: '0',
  LOG_LEVEL: 'SILENT',
  POWERTOOLS_TRACE_ENABLED: 'false',
});
