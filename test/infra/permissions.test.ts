/**
 * The permissions check of `npm test` (its own vitest project, after the others): the IAM grants
 * against every AWS operation this run's int and e2e files recorded, with a record of every function
 * of the app required (test/support/permission-grants.ts); and the check itself, shown failing on
 * roles edited to lack one grant.
 *
 * Alone (`npm run test:permissions`) it reads the records of the last run.
 */
import { describe, expect, it } from 'vitest';
import { WORKER_ENTRIES } from '../support/aws-operations.ts';
import { ACCOUNT, REGION, TABLE } from '../support/iam-policies.ts';
import {
  allFunctions,
  declaredNeeds,
  describeGrantsOfRecordedOperations,
  missingGrants,
  recordedNeeds,
  SENDER,
  withEditedRole,
} from '../support/permission-grants.ts';

describeGrantsOfRecordedOperations({ name: 'npm test', everyFunctionRecorded: true });

describe('the check itself', () => {
  it('fails when the upload minter may sign PUTs under images/ only, not uploads/', async () => {
    // Prepare
    const edited = withEditedRole('createPropertyImageUpload', (statement) =>
      JSON.stringify(statement.Action).includes('s3:PutObject')
        ? {
            ...statement,
            Resource: JSON.parse(JSON.stringify(statement.Resource).replaceAll('/uploads/', '/images/')),
          }
        : statement,
    );
    // Act
    const missing = await missingGrants(allFunctions(), declaredNeeds, edited);
    // Assess
    expect(Object.keys(missing)).toEqual(['createPropertyImageUpload']);
    expect(missing.createPropertyImageUpload?.[0]).toMatch(/^s3:PutObject on arn:aws:s3:.*\/uploads\//);
  });

  it('fails when a grant is removed: getLead without dynamodb:GetItem', async () => {
    // Prepare
    const edited = withEditedRole('getLead', (statement) => {
      const actions = ([] as string[]).concat(statement.Action as string | string[]);
      const kept = actions.filter((action) => action !== 'dynamodb:GetItem');
      return kept.length > 0 ? { ...statement, Action: kept } : undefined;
    });
    // Act
    const missing = await missingGrants(allFunctions(), recordedNeeds, edited);
    // Assess
    expect(Object.keys(missing)).toEqual(['getLead']);
    expect(missing.getLead).toContain(
      `dynamodb:GetItem on arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${TABLE}`,
    );
  });

  it('fails when a Query is granted on the table but not on the index it reads: listLeads without its indexes', async () => {
    // Prepare
    const edited = withEditedRole('listLeads', (statement) =>
      JSON.stringify(statement.Resource).includes('/index/') ? undefined : statement,
    );
    // Act
    const missing = await missingGrants(allFunctions(), recordedNeeds, edited);
    // Assess
    expect(Object.keys(missing)).toEqual(['listLeads']);
    expect(
      missing.listLeads?.every(
        (m) => m.startsWith('dynamodb:Query on ') && m.includes(`table/${TABLE}/index/`),
      ),
    ).toBe(true);
  });

  it('fails when the webhook worker loses scheduler:CreateSchedule, or may pass no role to Scheduler', async () => {
    // Prepare
    const worker = WORKER_ENTRIES.webhookDelivery;
    const without = (action: string) =>
      withEditedRole(worker, (statement) =>
        JSON.stringify(statement.Action).includes(action) ? undefined : statement,
      );
    // Act
    const noSchedules = await missingGrants(
      allFunctions(),
      declaredNeeds,
      without('scheduler:CreateSchedule'),
    );
    const noPassRole = await missingGrants(allFunctions(), declaredNeeds, without('iam:PassRole'));
    // Assess
    expect(Object.keys(noSchedules)).toEqual([worker]);
    expect(noSchedules[worker]).toEqual([
      expect.stringMatching(/^scheduler:CreateSchedule on arn:aws:scheduler:.*:schedule\/.+\/webhook-/),
    ]);
    expect(Object.keys(noPassRole)).toEqual([worker]);
    expect(noPassRole[worker]).toEqual([expect.stringMatching(/^iam:PassRole on arn:aws:iam:/)]);
  });

  it('fails when a route that sends email loses ses:SendEmail', async () => {
    // Prepare
    const edited = withEditedRole('sendLeadMatches', (statement) =>
      JSON.stringify(statement.Action).includes('ses:') ? undefined : statement,
    );
    // Act
    const missing = await missingGrants(allFunctions(), declaredNeeds, edited);
    // Assess
    expect(missing).toEqual({
      sendLeadMatches: [`ses:SendEmail on arn:aws:ses:${REGION}:${ACCOUNT}:identity/${SENDER.domain}`],
    });
  });
});
