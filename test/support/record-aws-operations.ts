import { beforeAll } from 'vitest';
import { dynamo } from '../../functions/data/client.ts';
import { recordAwsOperations } from '../../functions/kernel/aws-operations.ts';
import { awsOperationsFileSink } from './aws-operations.ts';

// Every test file records the AWS operations the functions it runs perform (test/infra/permissions.test.ts
// checks them against the synthesized IAM policies). In beforeAll, after the file's own module-level
// setup, so that creating the shared client does not read the configuration early.
beforeAll(() => {
  recordAwsOperations(dynamo(), awsOperationsFileSink());
});
