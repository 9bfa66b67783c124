import { join } from 'node:path';
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { tableDefinition } from '../../functions/data/table.ts';
import { repoRoot, ServiceFunction, TABLE_READ } from '../constructs/service-function.ts';

export interface AsyncStackProps extends StackProps {
  /** The table whose stream feeds the consumer. */
  readonly table: ITable;
}

/** The asynchronous side: the table's stream consumer (queues, scheduler and workers join it later). */
export class AsyncStack extends Stack {
  readonly streamConsumer: ServiceFunction;
  readonly streamDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: AsyncStackProps) {
    super(scope, id, props);

    // Receives the description of a batch (shard, sequence numbers) that failed every retry or grew too
    // old, so that it can be read again from the stream while the stream still holds it (24 h).
    this.streamDeadLetterQueue = new Queue(this, 'StreamDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    NagSuppressions.addResourceSuppressions(this.streamDeadLetterQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself a dead-letter destination: the on-failure destination of the stream ' +
          'consumer. cdk-nag only recognises SQS redrive policies as DLQ use.',
      },
    ]);

    this.streamConsumer = new ServiceFunction(this, 'StreamConsumer', {
      entry: join(repoRoot, 'functions', 'streams', 'consumer.ts'),
      description: 'DynamoDB stream consumer: derives events from table changes',
      timeout: Duration.seconds(60),
    });
    // Reads only, for now: the event log and fan-out will add their own grants when they land.
    this.streamConsumer.bindTable(props.table, {
      actions: TABLE_READ,
      indexNames: tableDefinition.globalSecondaryIndexes.map((index) => index.indexName),
    });

    this.streamConsumer.fn.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        // Order matters per item: one batch at a time per shard.
        parallelizationFactor: 1,
        // The handler reports the first failed record and everything after it; Lambda retries from there.
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(this.streamDeadLetterQueue),
      }),
    );
    this.streamConsumer.suppressWildcardResource(
      'dynamodb:ListStreams (granted by the DynamoDB event source) does not support resource-level ' +
        'permissions: IAM only accepts "*" for it. Stream reads themselves are scoped to the stream ARN.',
    );
  }
}
