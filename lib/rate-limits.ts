/**
 * Per-client limits in front of the API: an AWS WAF web ACL with rate-based rules, one per source
 * address and one per client token and source address, each optional, and, whenever the web ACL exists, one
 * for `POST /sessions` per client token and source address (a backend signing its users in, or someone
 * trying secrets). The stage throttle alone is shared by everyone, so one noisy caller (or a flood of
 * requests with made-up tokens, which count against it too) can use it up for all; these rules stop such a
 * caller before API Gateway, its throttle or a function see it.
 *
 * The client token may ship inside a public app, so nothing is counted per token alone: anyone who extracted
 * it could then spend the real application's allowance and have WAF block the application itself. Counted per
 * token *and* address (WAF custom aggregation keys), a flood blocks only the address it comes from.
 *
 * A blocked request gets no WAF custom response: WAF then hands it to API Gateway's `WAF_FILTERED`
 * gateway response, which answers with the contract's error body and API Gateway's request id (see
 * `lib/rest-api.ts`). Requests are never sampled, because a sample shows the request's headers, and
 * so the client and session tokens, to anyone who can open the WAF console.
 */
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** The window over which a rate-based rule counts requests, in seconds; limits are per this window. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** The header whose value identifies the calling client (lower case, as WAF matches header names). */
export const CLIENT_TOKEN_HEADER = 'x-client-token';

export interface ApiRateLimitsProps {
  /** The web ACL's name, also the prefix of its CloudWatch metric names. */
  name: string;
  /** The ARN of the API Gateway stage the web ACL protects. */
  stageArn: string;
  /** Requests a minute per source address; `undefined` adds no such rule. */
  ipRateLimit: number | undefined;
  /** Requests a minute per client token and source address; `undefined` adds no such rule. */
  clientRateLimit: number | undefined;
  /** `POST /sessions` requests a minute per client token and source address. */
  sessionRateLimit: number;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  metricName,
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: false,
});

/** WAF's aggregation keys of the per-client rules: the client token and the request's source address. */
const CLIENT_AND_ADDRESS_KEYS: CfnWebACL.RateBasedStatementCustomKeyProperty[] = [
  { header: { name: CLIENT_TOKEN_HEADER, textTransformations: [{ priority: 0, type: 'NONE' }] } },
  { ip: {} },
];

/** A byte match of a request part against a string, untransformed. */
const matchOn = (
  fieldToMatch: CfnWebACL.FieldToMatchProperty,
  searchString: string,
): Omit<CfnWebACL.ByteMatchStatementProperty, 'positionalConstraint'> => ({
  fieldToMatch,
  searchString,
  textTransformations: [{ priority: 0, type: 'NONE' }],
});

const exactly = (fieldToMatch: CfnWebACL.FieldToMatchProperty, value: string): CfnWebACL.StatementProperty => ({
  byteMatchStatement: { ...matchOn(fieldToMatch, value), positionalConstraint: 'EXACTLY' },
});

/** The web ACL and its association with the stage. */
export class ApiRateLimits extends Construct {
  public readonly webAcl: CfnWebACL;

  public constructor(scope: Construct, id: string, props: ApiRateLimitsProps) {
    super(scope, id);
    const rules: CfnWebACL.RuleProperty[] = [];
    const rateRule = (
      name: string,
      limit: number,
      statement: Omit<CfnWebACL.RateBasedStatementProperty, 'limit' | 'evaluationWindowSec'>,
    ): void => {
      rules.push({
        name,
        priority: rules.length,
        action: { block: {} },
        statement: {
          rateBasedStatement: { limit, evaluationWindowSec: RATE_LIMIT_WINDOW_SECONDS, ...statement },
        },
        visibilityConfig: visibility(`${props.name}-${name}`),
      });
    };
    if (props.ipRateLimit !== undefined) {
      rateRule('PerSourceAddress', props.ipRateLimit, { aggregateKeyType: 'IP' });
    }
    if (props.clientRateLimit !== undefined) {
      // A request without the header is not counted by this rule (the per-address rule still counts it).
      rateRule('PerClientTokenAndAddress', props.clientRateLimit, {
        aggregateKeyType: 'CUSTOM_KEYS',
        customKeys: CLIENT_AND_ADDRESS_KEYS,
      });
    }
    // Counted apart from the other requests: signing users in may not crowd out their searches, nor the
    // reverse, and guessing secrets for a client token stops at this many tries a minute from one address.
    rateRule('SessionsPerClientTokenAndAddress', props.sessionRateLimit, {
      aggregateKeyType: 'CUSTOM_KEYS',
      customKeys: CLIENT_AND_ADDRESS_KEYS,
      scopeDownStatement: {
        andStatement: {
          statements: [
            exactly({ method: {} }, 'POST'),
            { byteMatchStatement: { ...matchOn({ uriPath: {} }, '/sessions'), positionalConstraint: 'ENDS_WITH' } },
          ],
        },
      },
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: props.name,
      description: 'Jobs API per-client limits',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      rules,
      visibilityConfig: visibility(props.name),
    });
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
