import { Names, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The name of the CloudFront policy `id` under `scope`: the scope's unique id (which holds the stack
 * name, and so the stage), the policy's id and the stack's region. CloudFront is global: a policy
 * name must be unique in the account, whatever region its stack is deployed in, so one stage deployed
 * in two regions needs the region in the name. CDK's default name of a cache policy has the region
 * already; that of an origin request policy does not (the same stage in a second region would fail
 * on a name taken). Letters, digits and `-` only, at most 128 characters, as CloudFront requires.
 */
export function regionalPolicyName(scope: Construct, id: string): string {
  return `${Names.uniqueId(scope).slice(0, 80)}-${id.slice(0, 30)}-${Stack.of(scope).region}`;
}
