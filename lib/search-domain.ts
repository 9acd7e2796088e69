/**
 * The OpenSearch domain the indexer writes and search reads: current engine, encryption at rest and
 * between nodes, HTTPS only with TLS 1.2 or newer, logs in CloudWatch, and access only by SigV4-signed
 * requests of the roles this construct is told about, on the index paths they need.
 */
import { Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { EbsDeviceVolumeType } from 'aws-cdk-lib/aws-ec2';
import { type IRole, PolicyDocument, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup, ResourcePolicy, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { type CfnDomain, Domain, EngineVersion, TLSSecurityPolicy } from 'aws-cdk-lib/aws-opensearchservice';
import { Construct } from 'constructs';

/** The HTTP methods of the OpenSearch data plane, as IAM actions. */
export type SearchHttpAction = 'es:ESHttpGet' | 'es:ESHttpHead' | 'es:ESHttpPost' | 'es:ESHttpPut';

export interface SearchDomainProps {
  /**
   * Domain name (3–28 characters, lowercase), possibly a CloudFormation expression: known without
   * referring to the domain, so the domain's own access policy can name it.
   */
  domainName: string;
  /** The index (or alias) the functions use. */
  indexName: string;
  instanceType: string;
  instanceCount: number;
  /** 1 turns zone awareness off; 2 or 3 spread the nodes over that many availability zones. */
  zoneCount: 1 | 2 | 3;
  volumeSizeGiB: number;
  logRetention: RetentionDays;
  /** Whether the domain survives the deletion of the stack. */
  retain: boolean;
}

/** One grant: a role may send these requests to these paths of the domain. */
interface PathGrant {
  role: IRole;
  actions: SearchHttpAction[];
  paths: string[];
}

/** The OpenSearch domain. */
export class SearchDomain extends Construct {
  public readonly domain: Domain;
  /** The index (or alias) the functions use. */
  public readonly indexName: string;
  /** Whether the data nodes are spread over several availability zones. */
  public readonly zoneAware: boolean;
  private readonly grants: PathGrant[] = [];
  private readonly domainArnPattern: string;

  public constructor(scope: Construct, id: string, props: SearchDomainProps) {
    super(scope, id);
    this.indexName = props.indexName;
    this.zoneAware = props.zoneCount > 1;
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const logGroup = (name: string): LogGroup =>
      new LogGroup(this, name, { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    const slowSearchLogGroup = logGroup('SlowSearchLogs');
    const slowIndexLogGroup = logGroup('SlowIndexLogs');
    const appLogGroup = logGroup('ApplicationLogs');

    // OpenSearch needs permission to write to the log groups before the domain is created. A native
    // resource policy does that without the custom-resource Lambda the Domain construct would add.
    const logsPolicy = new ResourcePolicy(this, 'LogsResourcePolicy', {
      policyStatements: [
        new PolicyStatement({
          principals: [new ServicePrincipal('es.amazonaws.com')],
          actions: ['logs:PutLogEvents', 'logs:CreateLogStream'],
          resources: [slowSearchLogGroup, slowIndexLogGroup, appLogGroup].map((group) => group.logGroupArn),
          conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
        }),
      ],
    });

    this.domain = new Domain(this, 'Domain', {
      domainName: props.domainName,
      version: EngineVersion.OPENSEARCH_3_7,
      capacity: {
        dataNodes: props.instanceCount,
        dataNodeInstanceType: props.instanceType,
        multiAzWithStandbyEnabled: false,
      },
      zoneAwareness:
        props.zoneCount === 1 ? { enabled: false } : { enabled: true, availabilityZoneCount: props.zoneCount },
      ebs: { enabled: true, volumeSize: props.volumeSizeGiB, volumeType: EbsDeviceVolumeType.GP3 },
      encryptionAtRest: { enabled: true },
      nodeToNodeEncryption: true,
      enforceHttps: true,
      tlsSecurityPolicy: TLSSecurityPolicy.TLS_1_2_PFS,
      logging: {
        slowSearchLogEnabled: true,
        slowSearchLogGroup,
        slowIndexLogEnabled: true,
        slowIndexLogGroup,
        appLogEnabled: true,
        appLogGroup,
      },
      // Bulk bodies may not name an index: a role granted one index's _bulk path cannot write another.
      advancedOptions: { 'rest.action.multi.allow_explicit_index': 'false' },
      enableAutoSoftwareUpdate: true,
      suppressLogsResourcePolicy: true,
      removalPolicy,
    });
    this.domain.node.addDependency(logsPolicy);

    this.domainArnPattern = Stack.of(this).formatArn({
      service: 'es',
      resource: 'domain',
      resourceName: props.domainName,
    });
    // The resource policy names the domain by its fixed name (its ARN attribute would be a circular
    // reference) and lists exactly the grants made through this construct. Without a matching
    // statement here or in a caller's own IAM policy, a request is denied.
    (this.domain.node.defaultChild as CfnDomain).accessPolicies = Lazy.any({
      produce: () => (this.grants.length === 0 ? undefined : this.accessPolicy().toJSON()),
    });
  }

  /** The domain's endpoint URL, `https://…`. */
  public get url(): string {
    return `https://${this.domain.domainEndpoint}`;
  }

  /** The domain paths of the index: the index itself and everything under it (`_search`, `_doc/…`). */
  public get indexPaths(): string[] {
    return [this.indexName, `${this.indexName}/*`];
  }

  /**
   * Lets a role send these requests to these domain paths (`jobs`, `jobs/*`, `_bulk`): an identity
   * policy on the role and a statement in the domain's resource policy.
   */
  public grantPaths(role: IRole, actions: SearchHttpAction[], paths: string[]): void {
    this.grants.push({ role, actions, paths });
    role.addToPrincipalPolicy(
      new PolicyStatement({ actions, resources: paths.map((path) => `${this.domain.domainArn}/${path}`) }),
    );
  }

  private accessPolicy(): PolicyDocument {
    const statements = this.grants.map(
      (grant) =>
        new PolicyStatement({
          principals: [grant.role],
          actions: grant.actions,
          resources: grant.paths.map((path) => `${this.domainArnPattern}/${path}`),
        }),
    );
    return new PolicyDocument({ statements });
  }
}
