/**
 * The rehearsals' judge judges once the calls that must get one verdict: the key it shares a verdict under
 * (`verdictKey`) groups calls of an action only when nothing but which statements their resources match can tell
 * them apart, and the IAM evaluator agrees with every grouping here.
 */
import { describe, expect, it } from 'vitest';
import { judgeCall, verdictKey } from '../rehearsal/judge';
import type { AuthorizedCall } from '../rehearsal/recorder';
import { ACCOUNT, type PolicyDocument } from '../rehearsal/account';

const BUCKET = 'arn:aws:s3:::jobs-api-pictures';
const TABLE = `arn:aws:dynamodb:eu-west-1:${ACCOUNT}:table/Jobs`;

const policy: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Action: 's3:PutObject', Resource: `${BUCKET}/uploads/*` },
    { Effect: 'Allow', Action: 'dynamodb:GetItem', Resource: TABLE },
    {
      Effect: 'Allow',
      Action: 'dynamodb:PutItem',
      Resource: TABLE,
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['JOB#*'] } },
    },
  ],
};
const noDomainPolicy: PolicyDocument = { Version: '2012-10-17', Statement: [] };

const call = (action: string, resource: string, leadingKeys?: string[]): AuthorizedCall => ({
  action,
  resource,
  origin: 'test',
  ...(leadingKeys === undefined ? {} : { leadingKeys }),
});

const verdict = (recorded: AuthorizedCall) =>
  judgeCall(
    {
      principal: `arn:aws:iam::${ACCOUNT}:role/Operator`,
      identityPolicies: [{ name: 'Operator', policy }],
      domainAccessPolicy: noDomainPolicy,
    },
    recorded,
  );

describe('verdictKey', () => {
  it('groups the calls of an action whose resources match the same statements, and the evaluator agrees', async () => {
    const puts = [
      call('s3:PutObject', `${BUCKET}/uploads/1/2/3/original`),
      call('s3:PutObject', `${BUCKET}/uploads/4/5/6/edited`),
    ];
    const outside = call('s3:PutObject', `${BUCKET}/renditions/1/2/3/preview`);

    expect(verdictKey([policy], puts[0]!)).toBe(verdictKey([policy], puts[1]!));
    expect(verdictKey([policy], outside)).not.toBe(verdictKey([policy], puts[0]!));
    expect(await Promise.all(puts.map(verdict))).toEqual(['Allowed', 'Allowed']);
    expect(await verdict(outside)).toBe('ImplicitlyDenied');
  });

  it('judges on its own a call with context, and a call of an action a conditional statement names', () => {
    const put = (key: string) => call('dynamodb:PutItem', TABLE, [key]);
    expect(verdictKey([policy], put('JOB#1'))).toBe(`dynamodb:PutItem ${TABLE}`);
    expect(verdictKey([policy], call('dynamodb:PutItem', TABLE))).toBe(`dynamodb:PutItem ${TABLE}`);
  });

  it('never groups calls of different actions', () => {
    expect(verdictKey([policy], call('dynamodb:GetItem', TABLE))).not.toBe(
      verdictKey([policy], call('dynamodb:Query', TABLE)),
    );
  });
});
