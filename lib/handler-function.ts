/**
 * One Lambda function per handler module of `functions/`: bundled by the local esbuild (never Docker)
 * as a minified ESM file with a source map, run on Node.js 24 on arm64 with X-Ray tracing, logging to
 * its own log group, and configured through the environment `functions/config.ts` reads.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type CfnFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root: `functions/` and `package-lock.json` live here. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Lets CommonJS dependencies call `require` (for Node.js built-ins) inside the ESM bundle. The import
 * is aliased so it can never clash with an import of the bundled code.
 */
export const ESM_BANNER =
  "import { createRequire as __jobsApiCreateRequire } from 'node:module'; " +
  'const require = __jobsApiCreateRequire(import.meta.url);';

/**
 * The Powertools tracer and the X-Ray SDK it loads. `functions/http/middlewares/detailed-tracing.ts`
 * imports them only when detailed tracing is on, so a deployment without it leaves them out of the
 * bundles entirely (≈ 115 KiB less to parse at every cold start).
 */
export const TRACER_MODULES = ['@aws-lambda-powertools/tracer', '@aws-lambda-powertools/tracer/*'] as const;

/**
 * The modules esbuild leaves out of a bundle: the tracer unless detailed tracing is on. The AWS SDK is bundled —
 * the versions package-lock.json pins and the tests ran, not the copy the Node.js 24 runtime ships and AWS updates
 * on its own schedule (docs/design.md, "The AWS SDK in the bundles").
 */
export const externalModulesFor = (detailedTracing: boolean): string[] => [...(detailedTracing ? [] : TRACER_MODULES)];

/** What every function's environment holds besides its own settings. */
export const POWERTOOLS_ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: 'jobs-api',
  POWERTOOLS_METRICS_NAMESPACE: 'JobsApi',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  // Responses hold customers' job data; keep them out of X-Ray.
  POWERTOOLS_TRACER_CAPTURE_RESPONSE: 'false',
  NODE_OPTIONS: '--enable-source-maps',
} as const;

/**
 * Where the native modules a bundle cannot hold come from: `native/`, a package of its own whose
 * `node_modules` is installed for Lambda's platform (Linux, arm64, glibc) whatever machine builds —
 * `npm run native:install`, which the project's `postinstall` runs. Synthesis copies it into the function's
 * asset offline; it never downloads.
 */
export const NATIVE_NODE_MODULES = join(PROJECT_ROOT, 'native', 'node_modules');

/** What `npm run native:install` installs and a bundle leaves to it. */
export interface NativeModules {
  /** The packages left out of the bundle (esbuild `external`) and shipped beside it: `sharp`. */
  modules: readonly string[];
  /** A `node_modules` folder, installed for Lambda's platform, holding them and their dependencies. */
  nodeModules: string;
}

/**
 * The shell commands that copy a platform's `node_modules` into a function's asset (`outputDir`), after esbuild:
 * they stop the synthesis, saying what to run, when the folder lacks a module. Lambda resolves the bundle's
 * `import 'sharp'` from `/var/task/node_modules`.
 */
export const nativeModuleCommands = (native: NativeModules, outputDir: string): string[] => [
  ...native.modules.map(
    (module) =>
      `test -f "${join(native.nodeModules, module, 'package.json')}" || ` +
      `{ echo "${module} for Lambda (linux-arm64) is not installed in ${native.nodeModules}: run npm run native:install" >&2; exit 1; }`,
  ),
  `cp -R "${native.nodeModules}" "${join(outputDir, 'node_modules')}"`,
  `rm -rf "${join(outputDir, 'node_modules', '.bin')}" "${join(outputDir, 'node_modules', '.package-lock.json')}"`,
];

export interface HandlerFunctionProps {
  /** The handler module, relative to `functions/handlers/` without extension: `search`, `search-fields`, … */
  module: string;
  /** The logical id of the function in the template: stable, so `sam local invoke <id>` works. */
  logicalId: string;
  description: string;
  memoryMiB: number;
  timeout: Duration;
  /**
   * Whether the function loads the Powertools tracer for a handler subsegment (`DETAILED_TRACING`);
   * without it the tracer is not even bundled.
   */
  detailedTracing: boolean;
  /** The function's own environment (tables, search engine, …). */
  environment: Record<string, string>;
  logRetention: RetentionDays;
  /** Native modules shipped beside the bundle instead of in it. */
  nativeModules?: NativeModules;
  /** Executions of the function at once, reserved from the account's concurrency; unreserved by default. */
  reservedConcurrency?: number;
}

/** A Lambda function running one handler module. */
export class HandlerFunction extends Construct {
  public readonly function: NodejsFunction;
  /** The function's execution role. */
  public readonly role: Role;

  public constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role instead of the AWS-managed basic execution policy: logs go to this group only.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.description}`,
    });
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const native = props.nativeModules;
    this.function = new NodejsFunction(this, 'Function', {
      role: this.role,
      entry: join(PROJECT_ROOT, 'functions', 'handlers', `${props.module}.ts`),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMiB,
      timeout: props.timeout,
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: {
        ...POWERTOOLS_ENVIRONMENT,
        DETAILED_TRACING: String(props.detailedTracing),
        ...props.environment,
      },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        banner: ESM_BANNER,
        externalModules: [...externalModulesFor(props.detailedTracing), ...(native?.modules ?? [])],
        ...(native === undefined
          ? {}
          : {
              commandHooks: {
                beforeBundling: (): string[] => [],
                beforeInstall: (): string[] => [],
                afterBundling: (_inputDir: string, outputDir: string): string[] =>
                  nativeModuleCommands(native, outputDir),
              },
            }),
      },
    });
    (this.function.node.defaultChild as CfnFunction).overrideLogicalId(props.logicalId);
  }
}
