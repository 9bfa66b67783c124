import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { ServiceApp } from '../../lib/app.ts';
import { repoRoot, ServiceFunction } from '../../lib/constructs/service-function.ts';

type Json = Record<string, unknown>;

/** A resource of a synthesized template. */
interface TemplateResource {
  Type: string;
  Properties?: Json;
}

/**
 * The account the app is evaluated in. The app is synthesized environment-agnostic, so CloudFormation
 * would fill these in at deploy time; the evaluator needs real-looking values (it checks ARN formats).
 */
export const PARTITION = 'aws';
export const REGION = 'eu-west-1';
export const ACCOUNT = '111122223333';
/** The physical name of the one table of the service, whatever the stack would call it. */
export const TABLE = 'ListingsLeadsTable';

/** What IAM decides for one request (the evaluator's overall result). */
export type Decision = 'Allowed' | 'ImplicitlyDenied' | 'ExplicitlyDenied';

/** One request as AWS authorizes it: who, which action, on which resource, in which context. */
export interface AccessRequest {
  /** A role ARN of the app (the request is made by a session of it) or a service principal (`sns.amazonaws.com`). */
  principal: string;
  action: string;
  resource: string;
  /** The request context AWS sends (`aws:SourceArn`, `aws:SecureTransport`…). */
  context?: Record<string, string | string[]>;
}

/** A function of the app with its role, under the name its records use. */
export interface FunctionRole {
  /** The route's operationId for an HTTP function; the entry (relative to the repository) otherwise. */
  name: string;
  roleArn: string;
  fn: ServiceFunction;
}

/** One resource of one stack, with what `Ref` and `Fn::GetAtt … Arn` give in the account. */
interface Located {
  stack: Stack;
  logicalId: string;
  resource: TemplateResource;
  ref: string;
  arn: string | undefined;
}

/** The property that names a resource where the template sets it (else a name is made up). */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::SQS::Queue': 'QueueName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::Scheduler::ScheduleGroup': 'Name',
  'AWS::Events::Rule': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
};

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const arn = (service: string, resource: string, region = REGION, account = ACCOUNT) =>
  `arn:${PARTITION}:${service}:${region}:${account}:${resource}`;

/** The role a session ARN (`arn:aws:sts::A:assumed-role/NAME/SESSION`) belongs to is `arn:aws:iam::A:role/NAME`. */
const sessionOf = (roleArn: string, session: string) =>
  roleArn.replace(
    /^arn:([^:]+):iam::(\d+):role\/(?:.*\/)?([^/]+)$/,
    `arn:$1:sts::$2:assumed-role/$3/${session}`,
  );

/**
 * The synthesized templates of an app, rendered as they will be in one account (every intrinsic
 * resolved: references, joins, cross-stack outputs, nested-stack parameters), and the IAM decision
 * for a request evaluated against them by a policy evaluator (`@cloud-copilot/iam-simulate`): the
 * caller's identity policies and the target's resource policy (bucket, queue, topic, key, role trust,
 * function permissions), Allow and Deny, conditions and all.
 */
export class SynthesizedApp {
  readonly service: ServiceApp;
  private readonly templates: Map<Stack, Json>;
  private readonly stacks: Stack[];
  private index: Located[] | undefined;
  /** Where the app's one synthesis wrote its templates (slow: the constructor does it). */
  private readonly directory: string;

  constructor(service: ServiceApp, templates?: Map<Stack, Json>) {
    this.service = service;
    this.templates = new Map(templates);
    this.stacks = service.app.node.findAll().filter((c): c is Stack => Stack.isStack(c));
    // Template.fromStack would synthesize the whole app again for every stack: once is enough.
    this.directory = service.app.synth().directory;
  }

  /** The template of `stack` (nested stacks included), from one synthesis of the app. */
  template(stack: Stack): Json {
    let template = this.templates.get(stack);
    if (!template) {
      template = JSON.parse(readFileSync(join(this.directory, stack.templateFile), 'utf8')) as Json;
      this.templates.set(stack, template);
    }
    return template;
  }

  /** Replaces a stack's template (a test removes a grant from it to show the check catches it). */
  replaceTemplate(stack: Stack, template: Json): void {
    this.templates.set(stack, template);
    this.index = undefined;
  }

  /**
   * A copy of this app in which `edit` has changed (a deep copy of) the template of the stack of
   * `construct`: how a test plants the removal of a statement.
   */
  edited(construct: IConstruct, edit: (resources: Record<string, TemplateResource>) => void): SynthesizedApp {
    const copy = new SynthesizedApp(this.service, this.templates);
    const stack = Stack.of(construct);
    const template = structuredClone(this.template(stack));
    edit(template.Resources as Record<string, TemplateResource>);
    copy.replaceTemplate(stack, template);
    return copy;
  }

  /**
   * A copy of this app in which each statement of the policies attached to `role` is replaced by what
   * `edit` returns for it (undefined removes it).
   */
  editedRole(role: IConstruct, edit: (statement: Json) => Json | undefined): SynthesizedApp {
    const roleId = this.logicalId(role);
    return this.edited(role, (resources) => {
      for (const resource of Object.values(resources)) {
        if (resource.Type !== 'AWS::IAM::Policy') continue;
        if (!JSON.stringify(resource.Properties?.Roles).includes(`"${roleId}"`)) continue;
        const document = resource.Properties?.PolicyDocument as { Statement: Json[] };
        document.Statement = asArray(document.Statement)
          .map(edit)
          .filter((s): s is Json => s !== undefined);
      }
    });
  }

  /** The logical id of `construct` (an L2 construct or its CloudFormation resource) in its stack. */
  logicalId(construct: IConstruct): string {
    const resource = (construct.node.defaultChild ?? construct) as IConstruct;
    return Stack.of(resource).getLogicalId(resource as never);
  }

  /** What `Ref` gives for `construct` in the account (a queue's URL, a role's name…). */
  refOf(construct: IConstruct): string {
    return String(this.resolve(Stack.of(construct), { Ref: this.logicalId(construct) }));
  }

  /** The ARN of `construct` in the account. */
  arnOf(construct: IConstruct): string {
    return String(this.resolve(Stack.of(construct), { 'Fn::GetAtt': [this.logicalId(construct), 'Arn'] }));
  }

  /** `value` (any part of `stack`'s template) with every intrinsic function resolved. */
  resolve(stack: Stack, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(stack, v));
    if (value === null || typeof value !== 'object') return value;
    const v = value as Json;
    const [key] = Object.keys(v);
    if (Object.keys(v).length === 1 && key && (key === 'Ref' || key.startsWith('Fn::'))) {
      return this.intrinsic(stack, key, v[key]);
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.resolve(stack, x)]));
  }

  private intrinsic(stack: Stack, fn: string, argument: unknown): unknown {
    const str = (x: unknown) => String(this.resolve(stack, x));
    switch (fn) {
      case 'Ref':
        return this.ref(stack, String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument)
          ? (argument as [string, string])
          : (String(argument).split(/\.(.*)/) as [string, string]);
        return this.attribute(stack, logicalId, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return parts.map(str).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.resolve(stack, list) as unknown[])[Number(this.resolve(stack, index))];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return str(source).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = (Array.isArray(argument) ? argument : [argument, {}]) as [string, Json];
        return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) =>
          name in variables
            ? str(variables[name])
            : name.includes('.')
              ? str({ 'Fn::GetAtt': name })
              : str({ Ref: name }),
        );
      }
      case 'Fn::GetStackOutput': {
        // A weak cross-stack reference: the output's value, in the stack that publishes it.
        const { StackName, OutputName } = argument as { StackName: string; OutputName: string };
        const source = this.stacks.find((s) => !s.nested && s.stackName === StackName);
        if (!source) throw new Error(`No stack ${StackName}`);
        const outputs = (this.template(source).Outputs ?? {}) as Record<string, { Value: unknown }>;
        return this.resolve(source, outputs[OutputName]?.Value);
      }
      case 'Fn::ImportValue': {
        // A strong cross-stack reference: the value of the output some stack exports under that name.
        const name = str(argument);
        for (const source of this.stacks.filter((s) => !s.nested)) {
          const outputs = (this.template(source).Outputs ?? {}) as Record<
            string,
            { Value: unknown; Export?: { Name?: unknown } }
          >;
          for (const output of Object.values(outputs)) {
            if (output.Export?.Name !== undefined && str(this.resolve(source, output.Export.Name)) === name) {
              return this.resolve(source, output.Value);
            }
          }
        }
        throw new Error(`No stack exports ${name}`);
      }
      default:
        throw new Error(`Cannot resolve ${fn} in ${stack.node.path}: ${JSON.stringify(argument)}`);
    }
  }

  private ref(stack: Stack, name: string): string {
    switch (name) {
      case 'AWS::Partition':
        return PARTITION;
      case 'AWS::Region':
        return REGION;
      case 'AWS::AccountId':
        return ACCOUNT;
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
    }
    const parameters = (this.template(stack).Parameters ?? {}) as Json;
    if (name in parameters) {
      // A nested stack's parameter: the value its parent passes.
      if (!NestedStack.isNestedStack(stack) || !stack.nestedStackResource) {
        throw new Error(`Parameter ${name} of ${stack.node.path} has no value here`);
      }
      const parent = Stack.of(stack.nestedStackResource);
      const resource = this.resources(parent)[parent.getLogicalId(stack.nestedStackResource)];
      return String(this.resolve(parent, (resource?.Properties?.Parameters as Json | undefined)?.[name]));
    }
    return this.located(stack, name).ref;
  }

  private attribute(stack: Stack, logicalId: string, attribute: string): string {
    const { resource, ref, arn: resourceArn } = this.located(stack, logicalId);
    if (attribute === 'Arn' && resourceArn) return resourceArn;
    const type = resource.Type;
    switch (`${type}.${attribute}`) {
      case 'AWS::DynamoDB::Table.StreamArn':
        return `${resourceArn}/stream/2026-01-01T00:00:00.000`;
      case 'AWS::SQS::Queue.QueueName':
        return String(resourceArn?.split(':').pop());
      case 'AWS::SQS::Queue.QueueUrl':
        return ref;
      case 'AWS::S3::Bucket.DomainName':
        return `${ref}.s3.amazonaws.com`;
      case 'AWS::S3::Bucket.RegionalDomainName':
        return `${ref}.s3.${REGION}.amazonaws.com`;
      case 'AWS::CloudFront::Distribution.DomainName':
        return `${ref.toLowerCase()}.cloudfront.net`;
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${ref}.execute-api.${REGION}.amazonaws.com`;
      case 'AWS::SNS::Topic.TopicArn':
        return ref;
      case 'AWS::SNS::Topic.TopicName':
        return ref.split(':').pop() ?? ref;
      case 'AWS::KMS::Key.KeyId':
      case 'AWS::CloudFront::OriginAccessControl.Id':
      case 'AWS::CloudFront::CachePolicy.Id':
      case 'AWS::CloudFront::OriginRequestPolicy.Id':
        return ref;
      default:
        // Not one a policy names (a function's code hash, an origin's id…): left recognizable, so that
        // a policy that did name it would match nothing rather than something by accident.
        return `UNMODELLED(${type}.${attribute} of ${ref})`;
    }
  }

  private resources(stack: Stack): Record<string, TemplateResource> {
    return (this.template(stack).Resources ?? {}) as Record<string, TemplateResource>;
  }

  /** Every resource of every stack, with its Ref and ARN in the account. */
  private all(): Located[] {
    if (!this.index) {
      this.index = this.stacks.flatMap((stack) =>
        Object.entries(this.resources(stack)).map(([logicalId, resource]) =>
          this.locate(stack, logicalId, resource),
        ),
      );
    }
    return this.index;
  }

  private located(stack: Stack, logicalId: string): Located {
    const found = this.all().find((l) => l.stack === stack && l.logicalId === logicalId);
    if (!found) throw new Error(`No resource ${logicalId} in ${stack.node.path}`);
    return found;
  }

  /**
   * Physical names stand in for generated ones: the stack's path and the logical id (a template's own
   * name property wins), so that every resource of the app has its own.
   */
  private locate(stack: Stack, logicalId: string, resource: TemplateResource): Located {
    const type = resource.Type;
    const given = NAME_PROPERTY[type] ? resource.Properties?.[NAME_PROPERTY[type]] : undefined;
    const name =
      typeof given === 'string'
        ? given
        : type === 'AWS::DynamoDB::Table'
          ? TABLE
          : `${stack.node.path.replace(/\//g, '-')}-${logicalId}`;
    const located = (ref: string, resourceArn?: string): Located => ({
      stack,
      logicalId,
      resource,
      ref,
      arn: resourceArn,
    });
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return located(name, arn('dynamodb', `table/${name}`));
      case 'AWS::SQS::Queue':
        return located(`https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${name}`, arn('sqs', name));
      case 'AWS::S3::Bucket': {
        const bucket = name.toLowerCase();
        return located(bucket, arn('s3', bucket, '', ''));
      }
      case 'AWS::IAM::Role':
        return located(name, arn('iam', `role/${name}`, ''));
      case 'AWS::Lambda::Function':
        return located(name, arn('lambda', `function:${name}`));
      case 'AWS::SNS::Topic':
        return located(arn('sns', name), arn('sns', name));
      case 'AWS::KMS::Key':
        return located(`key-${logicalId}`, arn('kms', `key/key-${logicalId}`));
      case 'AWS::SecretsManager::Secret':
        return located(
          arn('secretsmanager', `secret:${name}-AbCdEf`),
          arn('secretsmanager', `secret:${name}-AbCdEf`),
        );
      case 'AWS::Scheduler::ScheduleGroup':
        return located(name, arn('scheduler', `schedule-group/${name}`));
      case 'AWS::Events::Rule':
        return located(name, arn('events', `rule/${name}`));
      case 'AWS::Logs::LogGroup':
        return located(name, arn('logs', `log-group:${name}:*`));
      case 'AWS::CloudWatch::Alarm':
        return located(name, arn('cloudwatch', `alarm:${name}`));
      case 'AWS::CloudFront::Distribution':
        return located(`E${logicalId.toUpperCase()}`);
      case 'AWS::ApiGatewayV2::Api':
        return located(`api${logicalId.toLowerCase()}`);
      default:
        return located(name);
    }
  }

  /** The stack-and-resource of the template resource whose ARN (or Ref) is `arnOrRef`, if any. */
  private byArn(arnOrRef: string): Located | undefined {
    return this.all().find((l) => l.arn === arnOrRef || l.ref === arnOrRef);
  }

  /** Every resource of `type` in the app, its properties resolved. */
  resourcesOfType(type: string): (Omit<Located, 'resource'> & { properties: Json })[] {
    return this.all()
      .filter((l) => l.resource.Type === type)
      .map(({ resource, ...l }) => ({
        ...l,
        properties: this.resolve(l.stack, resource.Properties ?? {}) as Json,
      }));
  }

  /** Every function of the app with its role, under the name its records use. */
  functionRoles(): FunctionRole[] {
    const routeNames = new Map<ServiceFunction, string>();
    for (const group of this.service.api.routeGroups) {
      for (const [operationId, fn] of group.functions) routeNames.set(fn, operationId);
    }
    return this.service.app.node
      .findAll()
      .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
      .map((fn) => ({
        name: routeNames.get(fn) ?? relative(repoRoot, fn.entry),
        roleArn: this.arnOf(fn.role),
        fn,
      }));
  }

  /** The policy documents attached to the role `roleArn` (its inline policies and the stack's AWS::IAM::Policy). */
  identityPolicies(roleArn: string): { name: string; policy: Json }[] {
    const role = this.byArn(roleArn);
    if (role?.resource.Type !== 'AWS::IAM::Role') return [];
    const { stack } = role;
    const attached = Object.entries(this.resources(stack))
      .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
      .filter(([, r]) => asArray(this.resolve(stack, r.Properties?.Roles) as string[]).includes(role.ref))
      .map(([id, r]) => ({ name: id, policy: this.resolve(stack, r.Properties?.PolicyDocument) as Json }));
    const inline = asArray(role.resource.Properties?.Policies as Json[] | undefined).map((p) => ({
      name: String(p.PolicyName),
      policy: this.resolve(stack, p.PolicyDocument) as Json,
    }));
    return [...attached, ...inline];
  }

  /**
   * The resource policy that governs `resourceArn` for `action`: a bucket's (for its objects too), a
   * queue's, a topic's, a key's, a role's trust policy (for sts:AssumeRole), or a function's
   * permissions (each AWS::Lambda::Permission, as the statement Lambda adds for it).
   */
  resourcePolicy(action: string, resourceArn: string): Json | undefined {
    const [, , service] = resourceArn.split(':');
    const holders = (type: string) => this.resourcesOfType(type);
    const merged = (documents: Json[]) =>
      documents.length === 0
        ? undefined
        : { Version: '2012-10-17', Statement: documents.flatMap((d) => asArray(d.Statement as Json[])) };
    switch (service) {
      case 's3': {
        const bucket = resourceArn.split(':').slice(5).join(':').split('/')[0];
        return merged(
          holders('AWS::S3::BucketPolicy')
            .filter((p) => p.properties.Bucket === bucket)
            .map((p) => p.properties.PolicyDocument as Json),
        );
      }
      case 'sqs': {
        const url = this.byArn(resourceArn)?.ref;
        return merged(
          holders('AWS::SQS::QueuePolicy')
            .filter((p) => asArray(p.properties.Queues as string[]).includes(String(url)))
            .map((p) => p.properties.PolicyDocument as Json),
        );
      }
      case 'sns':
        return merged(
          holders('AWS::SNS::TopicPolicy')
            .filter((p) => asArray(p.properties.Topics as string[]).includes(resourceArn))
            .map((p) => p.properties.PolicyDocument as Json),
        );
      case 'kms': {
        const key = this.byArn(resourceArn);
        return key ? (this.resolve(key.stack, key.resource.Properties?.KeyPolicy) as Json) : undefined;
      }
      case 'iam': {
        const role = this.byArn(resourceArn);
        return action.toLowerCase().startsWith('sts:') && role
          ? (this.resolve(role.stack, role.resource.Properties?.AssumeRolePolicyDocument) as Json)
          : undefined;
      }
      case 'lambda': {
        const fn = this.byArn(resourceArn);
        const statements = holders('AWS::Lambda::Permission')
          .filter((p) => p.properties.FunctionName === resourceArn || p.properties.FunctionName === fn?.ref)
          .map((p) => lambdaPermissionStatement(p.logicalId, p.properties, resourceArn));
        return merged(statements.map((statement) => ({ Statement: [statement] })));
      }
      default:
        return undefined;
    }
  }

  /**
   * What IAM decides for `request`, evaluated against the app's policies. A role principal acts as a
   * session of the role (as a function does), with its identity policies; the target's resource policy
   * applies to every principal. Throws when the evaluator refuses the input (an action it does not
   * know, an ARN that is not of the action's resource types): a check that cannot run must not pass.
   */
  async decide(request: AccessRequest): Promise<Decision> {
    const isRole = request.principal.includes(':iam::');
    const result = await runSimulation(
      {
        request: {
          principal: isRole ? sessionOf(request.principal, 'session') : request.principal,
          action: request.action,
          resource: { resource: request.resource, accountId: ACCOUNT },
          contextVariables: {
            ...(isRole ? { 'aws:PrincipalArn': request.principal, 'aws:PrincipalAccount': ACCOUNT } : {}),
            ...request.context,
          },
        },
        identityPolicies: isRole ? this.identityPolicies(request.principal) : [],
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        resourcePolicy: this.resourcePolicy(request.action, request.resource),
        // Every bucket of the app blocks public access.
        additionalSettings: { s3: { blockPublicAccess: true } },
      },
      {},
    );
    if (result.resultType === 'error') {
      throw new Error(`The evaluator refused ${JSON.stringify(request)}: ${JSON.stringify(result.errors)}`);
    }
    return result.overallResult as Decision;
  }
}

/** Removes from a policy document (in place) the statements `drop` selects. */
export function dropStatements(document: unknown, drop: (statement: Json) => boolean): void {
  const policy = document as { Statement: Json[] | Json };
  policy.Statement = asArray(policy.Statement).filter((statement) => !drop(statement));
}

/** The statement Lambda adds to a function's resource policy for an AWS::Lambda::Permission. */
function lambdaPermissionStatement(sid: string, permission: Json, functionArn: string): Json {
  const principal = String(permission.Principal);
  const condition: Json = {};
  if (permission.SourceArn !== undefined) condition.ArnLike = { 'aws:SourceArn': permission.SourceArn };
  if (permission.SourceAccount !== undefined) {
    condition.StringEquals = { 'aws:SourceAccount': permission.SourceAccount };
  }
  return {
    Sid: sid,
    Effect: 'Allow',
    Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
    Action: permission.Action,
    Resource: functionArn,
    ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
  };
}
