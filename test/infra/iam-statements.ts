import type { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';

/** One statement of a synthesized IAM policy document. */
export interface Statement {
  Action: string | string[];
  Effect: string;
  Resource: unknown;
  Condition?: unknown;
}

/** The statement's actions; CloudFormation writes a single one as a bare string. */
export function actionsOf(statement: Pick<Statement, 'Action'> | Record<string, unknown>): string[] {
  return ([] as string[]).concat(statement.Action as string | string[]);
}

/** The statement's resources; a single one may be written bare. */
export function resourcesOf(statement: Statement): unknown[] {
  return Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
}

/** Every statement of the stack's inline policies attached to the role of that logical id. */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleLogicalId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** Every statement granted to `role` (a construct of `stack`) in that stack's template. */
export function statementsOf(
  template: Template,
  stack: Stack,
  role: { node: { defaultChild?: unknown } },
): Statement[] {
  return roleStatements(template, stack.getLogicalId(role.node.defaultChild as CfnRole));
}
