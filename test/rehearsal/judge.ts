/**
 * The rehearsals' judge: AWS's IAM policy evaluation (`@cloud-copilot/iam-simulate`) of one recorded call
 * for a principal with its identity policies and, for the search domain's data plane, the domain's access
 * policy; and the granted action/resource pairs no recorded call uses.
 */
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { AuthorizedCall } from './recorder';
import { ACCOUNT, type PolicyDocument } from './account';

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

/** The wildcards already made into expressions: the same few grants are matched against every recorded call. */
const patterns = new Map<string, RegExp>();

/** An IAM wildcard (`*`, `?`) as a regular expression. */
const pattern = (text: string): RegExp => {
  let made = patterns.get(text);
  if (made === undefined) {
    made = new RegExp(
      `^${text
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
    );
    patterns.set(text, made);
  }
  return made;
};

/** What of a statement decides whether it applies to a call. */
interface StatementScope {
  Action?: string | string[];
  Resource?: string | string[];
  NotAction?: unknown;
  NotResource?: unknown;
  Condition?: unknown;
}

/**
 * The key under which calls share one verdict. A verdict depends on the call's action, resource and context;
 * when the call carries no context and no statement naming its action has a condition, a policy variable or a
 * negation, only which of those statements the resource matches can change it. Calls of one action matching
 * the same statements (the demo's thousands of picture puts under one `uploads/*`) are then judged once;
 * any other call is judged on its own action and resource.
 */
export const verdictKey = (policies: readonly PolicyDocument[], call: AuthorizedCall): string => {
  const own = `${call.action} ${call.resource}`;
  if (call.leadingKeys !== undefined) return own;
  const matched: string[] = [];
  for (const [index, policy] of policies.entries()) {
    for (const [position, statement] of (policy.Statement as StatementScope[]).entries()) {
      if (statement.NotAction !== undefined || statement.NotResource !== undefined) return own;
      const actions = [statement.Action ?? []].flat();
      if (!actions.some((action) => pattern(action.toLowerCase()).test(call.action.toLowerCase()))) continue;
      const resources = [statement.Resource ?? []].flat();
      if (statement.Condition !== undefined || resources.some((resource) => resource.includes('${'))) return own;
      if (resources.some((resource) => pattern(resource).test(call.resource))) matched.push(`${index}.${position}`);
    }
  }
  return `${call.action} matching ${matched.join(',')}`;
};

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
