/**
 * The rehearsals' judge: AWS's IAM policy evaluation (`@cloud-copilot/iam-simulate`) of one recorded call
 * for a principal with its identity policies and, for the search domain's data plane, the domain's access
 * policy; and the granted action/resource pairs no recorded call uses.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { AuthorizedCall } from './recorder';
import { ACCOUNT, type PolicyDocument } from './template';

/** Who makes the calls, under which policies. */
export interface Caller {
  /** The role's (or user's) ARN. */
  principal: string;
  identityPolicies: { name: string; policy: PolicyDocument }[];
  /** The search domain's access policy, applied to `es:ESHttp*` calls. */
  domainAccessPolicy: PolicyDocument;
}

/** The evaluation's verdict on one call: `Allowed`, `ImplicitlyDenied`, `ExplicitlyDenied`, or why it could not be evaluated. */
export const judgeCall = async (caller: Caller, call: AuthorizedCall): Promise<string> => {
  const response = await runSimulation(
    {
      identityPolicies: caller.identityPolicies,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(call.action.startsWith('es:ESHttp') ? { resourcePolicy: caller.domainAccessPolicy } : {}),
      request: {
        principal: caller.principal,
        action: call.action,
        resource: { resource: call.resource, accountId: ACCOUNT },
        // The partition keys a DynamoDB call touches, for `dynamodb:LeadingKeys` conditions.
        contextVariables: call.leadingKeys === undefined ? {} : { 'dynamodb:LeadingKeys': call.leadingKeys },
      },
    },
    {},
  );
  if (response.resultType === 'error') return `not evaluable: ${JSON.stringify(response.errors)}`;
  return response.overallResult;
};

/** An IAM wildcard (`*`, `?`) as a regular expression. */
const pattern = (text: string): RegExp =>
  new RegExp(
    `^${text
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** The allowed action/resource pairs of `policies` that no call uses, except actions `explained` otherwise. */
export const unusedGrants = (
  policies: readonly PolicyDocument[],
  calls: readonly AuthorizedCall[],
  explained: ReadonlySet<string> = new Set(),
): string[] => {
  const unused: string[] = [];
  for (const policy of policies) {
    for (const statement of policy.Statement) {
      if (statement.Effect !== 'Allow') continue;
      for (const action of [statement.Action].flat() as string[]) {
        if (explained.has(action)) continue;
        for (const resource of [statement.Resource].flat() as string[]) {
          const used = calls.some((call) => pattern(action).test(call.action) && pattern(resource).test(call.resource));
          if (!used) unused.push(`${action} on ${resource}`);
        }
      }
    }
  }
  return unused;
};
