import { relative } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { ServiceApp } from '../../lib/app.ts';
import { repoRoot, ServiceFunction } from '../../lib/constructs/service-function.ts';

type Json = Record<string, unknown>;

/**
 * Stand-ins for what CloudFormation fills in at deploy time. The app is synthesized
 * environment-agnostic, so the policies and the expected ARNs both carry these.
 */
export const PARTITION = 'aws';
export const REGION = 'REGION';
export const ACCOUNT = 'ACCOUNT';
/** The one table of the service, whatever its physical name. */
export const TABLE = 'TABLE';

/** An Allow statement of a role, with its resources rendered as ARN patterns (`*` matches anything). */
export interface Grant {
  actions: string[];
  resources: string[];
}

/** What a function's role allows, under the name its records use. */
export interface FunctionGrants {
  /** The route's operationId for an HTTP function; the entry (relative to the repository) otherwise. */
  name: string;
  grants: Grant[];
}

/** One operation that must be allowed: an IAM action on one resource ARN. */
export interface Needed {
  action: string;
  arn: string;
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * The synthesized templates of an app, and the rendering of a policy's resource (intrinsics and all)
 * as the ARN it will be in the account.
 */
export class SynthesizedApp {
  readonly service: ServiceApp;
  private readonly templates = new Map<Stack, Json>();
  private readonly byName = new Map<string, Stack>();

  constructor(service: ServiceApp) {
    this.service = service;
    for (const stack of service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c))) {
      if (!stack.nested) this.byName.set(stack.stackName, stack);
    }
  }

  template(stack: Stack): Json {
    let template = this.templates.get(stack);
    if (!template) {
      template = Template.fromStack(stack).toJSON() as Json;
      this.templates.set(stack, template);
    }
    return template;
  }

  /** Replaces a stack's template (a test removes a grant from it to show the check catches it). */
  replaceTemplate(stack: Stack, template: Json): void {
    this.templates.set(stack, template);
  }

  private resources(stack: Stack): Record<string, { Type: string; Properties?: Json }> {
    return (this.template(stack).Resources ?? {}) as Record<string, { Type: string; Properties?: Json }>;
  }

  /** The ARN a resource of `stack` gets, from its type: stable names stand in for generated ones. */
  private arnOf(stack: Stack, logicalId: string, attribute: string): string {
    const type = this.resources(stack)[logicalId]?.Type ?? 'Unknown';
    const arn = (service: string, resource: string) =>
      `arn:${PARTITION}:${service}:${REGION}:${ACCOUNT}:${resource}`;
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return attribute === 'StreamArn'
          ? arn('dynamodb', `table/${TABLE}/stream/STREAM`)
          : arn('dynamodb', `table/${TABLE}`);
      case 'AWS::SQS::Queue':
        return arn('sqs', `${stack.stackName}-${logicalId}`);
      default:
        return arn(type.split('::')[1]?.toLowerCase() ?? 'unknown', `${logicalId}.${attribute}`);
    }
  }

  /** `value` (a policy's Resource entry, in `stack`) as an ARN string; `*` stays a wildcard. */
  render(stack: Stack, value: unknown): string {
    if (typeof value === 'string') return value;
    const v = value as Json;
    if ('Ref' in v) {
      const ref = String(v.Ref);
      if (ref === 'AWS::Partition') return PARTITION;
      if (ref === 'AWS::Region') return REGION;
      if (ref === 'AWS::AccountId') return ACCOUNT;
      if (ref === 'AWS::URLSuffix') return 'amazonaws.com';
      return `REF(${ref})`;
    }
    if ('Fn::GetAtt' in v) {
      const [logicalId, attribute] = v['Fn::GetAtt'] as [string, string];
      return this.arnOf(stack, logicalId, attribute);
    }
    if ('Fn::Join' in v) {
      const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => this.render(stack, part)).join(separator);
    }
    if ('Fn::GetStackOutput' in v) {
      // A weak cross-stack reference: the output's value, in the stack that publishes it.
      const { StackName, OutputName } = v['Fn::GetStackOutput'] as { StackName: string; OutputName: string };
      const source = this.byName.get(StackName);
      if (!source) return `UNRESOLVED(${StackName})`;
      const outputs = (this.template(source).Outputs ?? {}) as Record<string, { Value: unknown }>;
      return this.render(source, outputs[OutputName]?.Value);
    }
    return `UNRESOLVED(${JSON.stringify(value)})`;
  }

  /** Every function of the app with the Allow statements of its role (its own policies and inline ones). */
  functionGrants(): FunctionGrants[] {
    const routeNames = new Map<ServiceFunction, string>();
    for (const group of this.service.api.routeGroups) {
      for (const [operationId, fn] of group.functions) routeNames.set(fn, operationId);
    }
    return this.service.app.node
      .findAll()
      .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
      .map((fn) => ({
        name: routeNames.get(fn) ?? relative(repoRoot, fn.entry),
        grants: this.grantsOf(fn),
      }));
  }

  private grantsOf(fn: ServiceFunction): Grant[] {
    const stack = Stack.of(fn.role);
    const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnRole);
    const resources = Object.values(this.resources(stack));
    const documents = [
      ...resources
        .filter((r) => r.Type === 'AWS::IAM::Policy')
        .filter((r) =>
          asArray(r.Properties?.Roles as unknown[]).some((role) => (role as Json).Ref === roleId),
        )
        .map((r) => r.Properties?.PolicyDocument as Json),
      ...asArray((this.resources(stack)[roleId]?.Properties?.Policies ?? []) as Json[]).map(
        (p) => p.PolicyDocument as Json,
      ),
    ];
    return documents
      .flatMap((document) => asArray(document.Statement as Json[]))
      .filter((statement) => statement.Effect === 'Allow')
      .map((statement) => ({
        actions: asArray(statement.Action as string | string[]),
        resources: asArray(statement.Resource as unknown).map((r) => this.render(stack, r)),
      }));
  }
}

/** An IAM pattern (`*` any run of characters, `?` one) as a regular expression. */
function patternOf(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** Whether one of `grants` allows `needed` (actions compare case-insensitively, as IAM does). */
export function allows(grants: readonly Grant[], needed: Needed): boolean {
  return grants.some(
    (grant) =>
      grant.actions.some((action) => new RegExp(patternOf(action).source, 'i').test(needed.action)) &&
      grant.resources.some((resource) => patternOf(resource).test(needed.arn)),
  );
}
