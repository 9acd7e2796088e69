/**
 * The OpenSearch domain of a deployed stack, as its control plane reports it (`DescribeDomain`). The CLI's
 * `--stack` mode asks before it rebuilds or verifies the index, so an operator learns that the domain is
 * being deleted, still being created or runs an engine this project does not speak before a long run starts,
 * and `status --stack` shows the same facts on request.
 */
import type { DomainStatus, OpenSearchClient } from '@aws-sdk/client-opensearch';

/** What the CLI needs to know about the search domain. */
export interface SearchDomainState {
  name: string;
  /** `https://…`, the domain's own endpoint (public, or its VPC endpoint). */
  url: string | undefined;
  /** As the control plane spells it, `OpenSearch_3.7`. */
  engineVersion: string | undefined;
  /** `Active`, `Creating`, `Modifying`, `UpgradingEngineVersion`, `UpdatingServiceSoftware`, `Isolated`, `Deleting`. */
  processingStatus: string;
  /** A configuration change or blue/green deployment is under way; requests are served but slower. */
  processing: boolean;
  dataNodes: { instanceType: string | undefined; count: number | undefined; zones: number | undefined };
}

/**
 * The oldest OpenSearch version whose API the commands use: 2.12, the first that parses `must_exist` on an
 * `_aliases` `remove` action, which guards the rebuild's swap (an older engine refuses the whole request as
 * a parse error, so `reindex` could never move the alias).
 */
export const MIN_ENGINE_VERSION = { major: 2, minor: 12 } as const;

/** `OpenSearch_2.12` as the control plane spells it. */
const MIN_ENGINE_NAME = `OpenSearch_${MIN_ENGINE_VERSION.major}.${MIN_ENGINE_VERSION.minor}`;

/** Whether `engineVersion` (`OpenSearch_3.7`, `Elasticsearch_7.10`) is OpenSearch at the floor or newer. */
export const meetsEngineFloor = (engineVersion: string | undefined): boolean => {
  const match = /^OpenSearch_(\d+)\.(\d+)$/.exec(engineVersion ?? '');
  if (match === null) return false;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  return major > MIN_ENGINE_VERSION.major || (major === MIN_ENGINE_VERSION.major && minor >= MIN_ENGINE_VERSION.minor);
};

/** The stack names a domain that the control plane does not know (deleted by hand, or another region). */
export class SearchDomainNotFoundError extends Error {
  public constructor(domainName: string, region: string, options?: { cause?: unknown }) {
    super(`The stack's OpenSearch domain "${domainName}" does not exist in ${region}; redeploy the stack.`, options);
    this.name = 'SearchDomainNotFoundError';
  }
}

/** The domain exists but cannot take an index rebuild or a verification now. */
export class SearchDomainNotReadyError extends Error {
  public constructor(domainName: string, reason: string) {
    super(`The OpenSearch domain "${domainName}" is not ready: ${reason}.`);
    this.name = 'SearchDomainNotReadyError';
  }
}

const processingStatusOf = (status: DomainStatus): string => {
  if (status.DomainProcessingStatus !== undefined) return status.DomainProcessingStatus;
  // Older answers lack the field; derive it from the flags they always carry.
  if (status.Deleted === true) return 'Deleting';
  if (status.Created !== true) return 'Creating';
  return status.Processing === true ? 'Modifying' : 'Active';
};

const endpointOf = (status: DomainStatus): string | undefined => {
  const host = status.Endpoint ?? status.Endpoints?.vpc;
  return host === undefined ? undefined : `https://${host}`;
};

/**
 * Reads the domain's state from the OpenSearch control plane (with a client for `region` unless given one). The
 * control plane's SDK is loaded here, on first use, so that a command that never asks loads none of it.
 */
export const describeSearchDomain = async (
  domainName: string,
  region: string,
  client?: OpenSearchClient,
): Promise<SearchDomainState> => {
  const { DescribeDomainCommand, OpenSearchClient, ResourceNotFoundException } =
    await import('@aws-sdk/client-opensearch');
  const controlPlane = client ?? new OpenSearchClient({ region });
  let status: DomainStatus | undefined;
  try {
    ({ DomainStatus: status } = await controlPlane.send(new DescribeDomainCommand({ DomainName: domainName })));
  } catch (error) {
    if (error instanceof ResourceNotFoundException)
      throw new SearchDomainNotFoundError(domainName, region, { cause: error });
    throw error;
  }
  if (status === undefined) throw new SearchDomainNotFoundError(domainName, region);
  return {
    name: domainName,
    url: endpointOf(status),
    engineVersion: status.EngineVersion,
    processingStatus: processingStatusOf(status),
    processing: status.Processing === true || status.UpgradeProcessing === true,
    dataNodes: {
      instanceType: status.ClusterConfig?.InstanceType,
      count: status.ClusterConfig?.InstanceCount,
      zones: status.ClusterConfig?.ZoneAwarenessEnabled
        ? (status.ClusterConfig.ZoneAwarenessConfig?.AvailabilityZoneCount ?? 2)
        : 1,
    },
  };
};

/** Why the domain cannot serve the CLI now, or `undefined` when it can. */
export const notReadyReason = (state: SearchDomainState): string | undefined => {
  if (state.processingStatus === 'Deleting') return 'it is being deleted';
  if (state.processingStatus === 'Isolated') return 'AWS has isolated it (see its console page)';
  if (state.processingStatus === 'Creating' || state.url === undefined) {
    return 'it is still being created (this takes 15–30 minutes after cdk deploy starts)';
  }
  if (!meetsEngineFloor(state.engineVersion)) {
    return (
      `its engine ${state.engineVersion ?? '(unknown)'} is older than ${MIN_ENGINE_NAME}, the first whose alias ` +
      'swap reindex relies on (remove with must_exist); upgrade the domain (cdk deploy of this project sets ' +
      'its version)'
    );
  }
  return undefined;
};

/** Throws {@link SearchDomainNotReadyError} unless the domain can take requests of the CLI. */
export const assertSearchDomainReady = (state: SearchDomainState): void => {
  const reason = notReadyReason(state);
  if (reason !== undefined) throw new SearchDomainNotReadyError(state.name, reason);
};
