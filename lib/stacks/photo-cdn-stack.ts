import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { PhotoDistribution } from '../constructs/photo-distribution.ts';

export interface PhotoCdnStackProps extends StackProps {
  /** The photo bucket (data stack). */
  readonly photoBucket: IBucket;
}

/**
 * The CloudFront distribution in front of the photo bucket, in a stack of its own between Data and
 * Async. CloudFront is the service a new account is most often refused until AWS verifies it; in the
 * data stack, that refusal rolled the stateful stack back and left a deletion-protected table and two
 * retained buckets behind on every try. Here a refusal fails this stack alone: Data stays deployed,
 * and the next `cdk deploy --all` retries from this stack.
 *
 * The distribution reaches the bucket by reference (name and domain), so nothing here writes to the
 * data stack's bucket policy: a statement naming this distribution there would make Data depend on
 * this stack, which depends on Data (a cycle). The gallery is readable by the account's distributions
 * through the data stack's own grant (grantGalleryReadToAccountDistributions, `images/*` only).
 */
export class PhotoCdnStack extends Stack {
  readonly photoDistribution: PhotoDistribution;

  constructor(scope: Construct, id: string, props: PhotoCdnStackProps) {
    super(scope, id, props);
    const bucket = Bucket.fromBucketAttributes(this, 'PhotoBucket', {
      bucketArn: props.photoBucket.bucketArn,
      bucketRegionalDomainName: props.photoBucket.bucketRegionalDomainName,
    });
    this.photoDistribution = new PhotoDistribution(this, 'PhotoDistribution', { bucket });
    Annotations.of(this).acknowledgeWarning(
      '@aws-cdk/aws-cloudfront-origins:updateImportedBucketPolicyOac',
      "The photo bucket's policy (data stack) grants the account's distributions s3:GetObject on images/* (grantGalleryReadToAccountDistributions).",
    );
    new CfnOutput(this, 'PhotoBaseUrl', {
      value: this.photoDistribution.baseUrl,
      description: 'Base URL of the gallery photos (PHOTO_BASE_URL): image URLs are it plus the object key',
    });
  }
}
