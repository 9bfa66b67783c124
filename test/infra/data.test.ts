import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableDefinition } from '../../functions/data/table.ts';
import type { ServiceApp } from '../../lib/app.ts';
import { repoRoot } from '../../lib/constructs/service-function.ts';
import { sharedTestApp } from './deploy-context.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON, navigated freely here.
type Json = Record<string, any>;

let service: ServiceApp;
let template: Template;

beforeAll(() => {
  // Prepare + Act: the data stack as the app builds it (function code is not needed here).
  service = sharedTestApp();
  template = Template.fromStack(service.data);
}, 300_000); // a synth of every stack; slow on a busy 2-core machine

/** Every value of `key` anywhere in `node` (intrinsic functions nest freely). */
function valuesOf(node: unknown, key: string): unknown[] {
  if (Array.isArray(node)) return node.flatMap((item) => valuesOf(item, key));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => [...(k === key ? [v] : []), ...valuesOf(v, key)]);
}

describe('a first deploy on an account that CloudFront refuses', () => {
  it('leaves the data stack deployed: it holds no CloudFront resource, the photo CDN stack does', () => {
    // Act
    const cloudFrontTypes = Object.values(template.toJSON().Resources as Json)
      .map((resource) => resource.Type as string)
      .filter((type) => type.startsWith('AWS::CloudFront::'));

    // Assess
    expect(cloudFrontTypes).toEqual([]);
    const photoCdn = Template.fromStack(service.photoCdn);
    expect(Object.keys(photoCdn.findResources('AWS::CloudFront::Distribution'))).toHaveLength(1);
    expect(service.data.dependencies).toEqual([]);
    expect(service.photoCdn.dependencies).toEqual([service.data]);
  });

  it('gives the functions the photo base URL of the photo CDN stack', () => {
    // Prepare
    const exported = Object.values(Template.fromStack(service.photoCdn).toJSON().Outputs as Json)
      .map((output) => output.Export?.Name)
      .filter((name): name is string => typeof name === 'string');

    // Act
    const photoBaseUrls = [service.async, ...service.api.routeGroups]
      .flatMap((stack) => Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')))
      .map((fn) => fn.Properties.Environment?.Variables?.PHOTO_BASE_URL)
      .filter((value) => value !== undefined);

    // Assess
    expect(photoBaseUrls.length).toBeGreaterThan(0);
    for (const value of photoBaseUrls) {
      const imported = valuesOf(value, 'Fn::ImportValue');
      expect(imported).toHaveLength(1);
      expect(exported).toContain(imported[0]);
    }
  });
});

describe('cross-stack references', () => {
  it('are exports (Fn::ImportValue), never Fn::GetStackOutput, so a replaced resource cannot stay stale in a consumer', () => {
    // Prepare
    const stacks = service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    const templates = stacks.map((stack) => Template.fromStack(stack).toJSON());
    const exportNames = new Set(
      templates.flatMap((t) => Object.values((t.Outputs ?? {}) as Json).map((o) => o.Export?.Name)),
    );
    const flag = JSON.parse(readFileSync(join(repoRoot, 'cdk.json'), 'utf8')).context[
      '@aws-cdk/core:defaultCrossStackReferences'
    ];

    // Act
    const weak = templates.flatMap((t) => valuesOf(t, 'Fn::GetStackOutput'));
    const imports = templates.flatMap((t) => valuesOf(t, 'Fn::ImportValue'));

    // Assess
    expect(flag).toBe('strong');
    // Exports cannot cross regions: the one weak reference left is the site's web ACL, read from
    // its us-east-1 stack by name and region (a replaced web ACL needs the Site stack redeployed).
    expect(weak).toEqual([expect.objectContaining({ OutputName: 'WebAclArn', Region: 'us-east-1' })]);
    expect(imports.length).toBeGreaterThan(0);
    for (const name of imports) expect(exportNames, String(name)).toContain(name);
  });
});

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

describe('the photo distribution', () => {
  it('keeps a rendition at the edge as long as its Cache-Control says: a year (max-age=31536000), the origin header honoured', () => {
    // Prepare
    const photoCdn = Template.fromStack(service.photoCdn).toJSON();
    const [distribution] = Object.values(photoCdn.Resources as Json).filter(
      (r) => r.Type === 'AWS::CloudFront::Distribution',
    );
    // Act
    const policyId = distribution?.Properties.DistributionConfig.DefaultCacheBehavior.CachePolicyId;
    const policy = photoCdn.Resources[policyId?.Ref]?.Properties.CachePolicyConfig;
    // Assess: CloudFront caches for the origin's max-age, clamped between MinTTL and MaxTTL.
    expect(policy.MinTTL).toBe(0);
    expect(policy.MaxTTL).toBeGreaterThanOrEqual(31_536_000);
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
