/**
 * The search domain's data plane for the operator rehearsal and the verify-index bench: the fake OpenSearch
 * cluster (./fake-opensearch.ts — indices, aliases and write indices, external versions) behind a node that
 * checks every request against OpenSearch's published API description (./opensearch-witness.ts) before it is
 * answered, and reports each request to `onRequest`. It serves HTTP, or HTTPS with a throwaway self-signed
 * certificate for 127.0.0.1 (a domain's endpoint is always `https://`), which a CLI process trusts through
 * `NODE_EXTRA_CA_CERTS`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenSearchCluster, FakeOpenSearchNode, type RecordedRequest } from './fake-opensearch';
import { openSearchApiProblems } from './opensearch-witness';

/** A self-signed certificate for 127.0.0.1, made with the system's openssl, in a directory of its own. */
const selfSignedCertificate = (): { key: Buffer; cert: Buffer; certFile: string; directory: string } => {
  const directory = mkdtempSync(join(tmpdir(), 'opensearch-stand-in-'));
  const keyFile = join(directory, 'key.pem');
  const certFile = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), certFile, directory };
};

/** A fake cluster on a witnessed, recording node. */
export class OpenSearchStandIn {
  public readonly cluster = new FakeOpenSearchCluster();
  /** What the published API description says is wrong with each request it refused (none expected). */
  public readonly problems: string[] = [];
  /** Called with each request as it arrives (the rehearsal's recorder). */
  public onRequest: (request: RecordedRequest) => void = () => undefined;
  readonly #node: FakeOpenSearchNode;
  readonly #tls: ReturnType<typeof selfSignedCertificate> | undefined;

  public constructor(options: { tls?: boolean } = {}) {
    this.#tls = options.tls === true ? selfSignedCertificate() : undefined;
    // Reading the description takes seconds: once here, not inside a client's request timeout.
    openSearchApiProblems({ method: 'GET', path: '/_alias/jobs', query: new URLSearchParams(), body: '' });
    this.#node = new FakeOpenSearchNode((request) => {
      this.onRequest(request);
      const problems = openSearchApiProblems(request);
      if (problems.length === 0) return this.cluster.reply(request);
      this.problems.push(...problems.map((problem) => `${request.method} ${request.url}: ${problem}`));
      return { status: 400, body: { error: { type: 'x_content_parse_exception', reason: problems[0] }, status: 400 } };
    }, this.#tls);
  }

  /** Every request received so far. */
  public get requests(): RecordedRequest[] {
    return this.#node.requests;
  }

  /** The certificate a client must trust (`NODE_EXTRA_CA_CERTS`), when serving HTTPS. */
  public get certificateFile(): string | undefined {
    return this.#tls?.certFile;
  }

  /** Listens on a free loopback port; resolves to the node's URL. */
  public start(): Promise<string> {
    return this.#node.start();
  }

  public async stop(): Promise<void> {
    await this.#node.stop();
    if (this.#tls !== undefined) rmSync(this.#tls.directory, { recursive: true, force: true });
  }
}
