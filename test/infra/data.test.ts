import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/data/table.ts';
import { buildApp } from '../../lib/app.ts';
import { DEPLOY_CONTEXT } from './deploy-context.ts';

let template: Template;

beforeAll(() => {
  // Prepare + Act: the data stack as the app builds it (function code is not needed here).
  const { data } = buildApp({ stage: 'test', bundle: false, context: DEPLOY_CONTEXT });
  template = Template.fromStack(data);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

describe('the table', () => {
  it('is the one table of functions/data/table.ts, retained, with stream, TTL and PITR', () => {
    // Prepare
    const tables = template.findResources('AWS::DynamoDB::Table');

    // Act
    const [table] = Object.values(tables);

    // Assess
    expect(Object.keys(tables)).toHaveLength(1);
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.UpdateReplacePolicy).toBe('Retain');
    expect(table?.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
    });
    expect(tableDefinition.timeToLiveAttribute).toBe('ttl');
    expect(table?.Properties.TableName).toBeUndefined();
  });

  it('has the indexes of the table definition, string keys, projecting everything', () => {
    // Prepare
    const expected = tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    }));

    // Act
    const [table] = Object.values(template.findResources('AWS::DynamoDB::Table'));

    // Assess
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(expected);
    for (const attribute of table?.Properties.AttributeDefinitions ?? []) {
      expect(attribute.AttributeType).toBe('S');
    }
  });
});

describe('the photo bucket', () => {
  it('is retained, versioned, encrypted, private, SSL-only and logged', () => {
    // Prepare
    const buckets = template.findResources('AWS::S3::Bucket', {
      Properties: { VersioningConfiguration: { Status: 'Enabled' } },
    });

    // Act
    const [bucket] = Object.values(buckets);

    // Assess
    expect(Object.keys(buckets)).toHaveLength(1);
    expect(bucket?.DeletionPolicy).toBe('Retain');
    expect(bucket?.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: { DestinationBucketName: expect.anything() },
    });
    expect(bucket?.Properties.BucketName).toBeUndefined();
  });

  it('refuses requests without TLS on every bucket', () => {
    // Prepare
    const buckets = Object.keys(template.findResources('AWS::S3::Bucket'));

    // Act
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy'));

    // Assess
    for (const bucketId of buckets) {
      const policy = policies.find((p) => JSON.stringify(p.Properties.Bucket).includes(`"${bucketId}"`));
      expect(policy?.Properties.PolicyDocument.Statement).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Deny',
            Action: 's3:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      );
    }
  });
});
