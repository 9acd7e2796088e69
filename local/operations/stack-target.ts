/**
 * Finds a deployed Jobs API stack's resources from its CloudFormation outputs, so the CLI can work on
 * AWS (`--stack <name>`) exactly as it works on the local stack.
 */
import type { CloudFormationClient, Output, Stack } from '@aws-sdk/client-cloudformation';
import { STACK_OUTPUTS } from '../../lib/stack-outputs';

/** Where a deployed stack keeps its data. */
export interface StackTarget {
  jobsTable: string;
  authTable: string;
  /** The OpenSearch domain endpoint, `https://…`. */
  opensearchUrl: string;
  /** The OpenSearch domain's name, for the control plane. */
  opensearchDomain: string;
  /** The OpenSearch index (alias) the functions use. */
  opensearchIndex: string;
  /** The API's base URL, including the stage. */
  apiUrl: string;
  /** The CloudWatch Logs group the audit records go to. */
  auditLogGroup: string;
  /** The pictures' bucket; `undefined` for a stack deployed before it had one. */
  imagesBucket?: string;
  /** The region the stack was found in. */
  region: string;
}

/** The stack does not exist in the region (or the caller may not see it). */
export class StackNotFoundError extends Error {
  public constructor(stackName: string, region: string, options?: { cause?: unknown }) {
    super(
      `Stack "${stackName}" was not found in ${region}. Check the name (cdk deploy prints it) and the region.`,
      options,
    );
    this.name = 'StackNotFoundError';
  }
}

/** The stack exists but lacks an output the Jobs API stack always has. */
export class StackOutputMissingError extends Error {
  public constructor(stackName: string, outputKey: string, status: string | undefined) {
    super(
      `Stack "${stackName}" (status ${status ?? 'unknown'}) has no output "${outputKey}". ` +
        'Is it a Jobs API stack, and has its deployment finished?',
    );
    this.name = 'StackOutputMissingError';
  }
}

/** No region was given and none is configured. */
export class RegionMissingError extends Error {
  public constructor(options?: { cause?: unknown }) {
    super('No AWS region: pass --region or set AWS_REGION (or a region in your AWS profile).', options);
    this.name = 'RegionMissingError';
  }
}

export interface ResolveStackTargetOptions {
  /** The CloudFormation client to use (default: one for `region`). */
  client?: CloudFormationClient;
}

const regionOf = async (client: CloudFormationClient): Promise<string> => {
  try {
    const region = await client.config.region();
    if (!region) throw new RegionMissingError();
    return region;
  } catch (error) {
    if (error instanceof RegionMissingError) throw error;
    throw new RegionMissingError({ cause: error });
  }
};

const describe = async (client: CloudFormationClient, stackName: string, region: string): Promise<Stack> => {
  const { DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = Stacks?.[0];
    if (stack === undefined) throw new StackNotFoundError(stackName, region);
    return stack;
  } catch (error) {
    // CloudFormation answers a missing stack with a ValidationError "Stack with id … does not exist".
    if (error instanceof Error && error.name === 'ValidationError' && /does not exist/.test(error.message)) {
      throw new StackNotFoundError(stackName, region, { cause: error });
    }
    throw error;
  }
};

const outputValue = (stack: Stack, stackName: string, key: string, outputs: Output[]): string => {
  const value = outputs.find((output) => output.OutputKey === key)?.OutputValue?.trim();
  if (!value) throw new StackOutputMissingError(stackName, key, stack.StackStatus);
  return value;
};

/**
 * Reads the tables, the search endpoint and the region of a deployed Jobs API stack from its outputs
 * (`DescribeStacks`). The region is the one given, else the SDK's configured region. CloudFormation's SDK is
 * loaded on first use: only `--stack` asks for it.
 */
export const resolveStackTarget = async (
  stackName: string,
  region?: string,
  options: ResolveStackTargetOptions = {},
): Promise<StackTarget> => {
  const { CloudFormationClient } = await import('@aws-sdk/client-cloudformation');
  const client = options.client ?? new CloudFormationClient(region === undefined ? {} : { region });
  const resolvedRegion = region ?? (await regionOf(client));
  const stack = await describe(client, stackName, resolvedRegion);
  const outputs = stack.Outputs ?? [];
  const read = (key: string): string => outputValue(stack, stackName, key, outputs);
  const imagesBucket = outputs.find((output) => output.OutputKey === STACK_OUTPUTS.imagesBucket)?.OutputValue?.trim();
  return {
    jobsTable: read(STACK_OUTPUTS.jobsTable),
    authTable: read(STACK_OUTPUTS.authTable),
    opensearchUrl: read(STACK_OUTPUTS.opensearchUrl),
    opensearchDomain: read(STACK_OUTPUTS.opensearchDomain),
    opensearchIndex: read(STACK_OUTPUTS.opensearchIndex),
    apiUrl: read(STACK_OUTPUTS.apiUrl),
    auditLogGroup: read(STACK_OUTPUTS.auditLogGroup),
    ...(imagesBucket === undefined ? {} : { imagesBucket }),
    region: resolvedRegion,
  };
};

/** The environment `functions/config.ts` reads, pointing at a deployed stack. */
export const stackTargetEnvironment = (target: StackTarget): Record<string, string> => ({
  JOBS_TABLE: target.jobsTable,
  AUTH_TABLE: target.authTable,
  SEARCH_ENGINE: 'opensearch',
  OPENSEARCH_URL: target.opensearchUrl,
  OPENSEARCH_INDEX: target.opensearchIndex,
  AUDIT_LOG_GROUP: target.auditLogGroup,
  ...(target.imagesBucket ? { IMAGES_BUCKET: target.imagesBucket } : {}),
  AWS_REGION: target.region,
});
