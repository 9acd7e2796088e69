/**
 * Creating a job (`POST /jobs`, docs/contract.md §6a): the caller's account, new ids from the allocator,
 * a random guid, status `CJ_NEW`, and the job written the way the import writes one — in one transaction
 * when it fits, else files first and the job item last, so it is visible (to a read, to the indexer, to
 * search) only once whole.
 */
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../../auth/principal';
import { ApiError, invalidParameter } from '../../errors';
import { idAllocatorFor } from '../store/id-allocator';
import { JobsTable } from '../store/jobs-table';
import { type Job, unreviewedFile } from '../model/model';
import { JobRepository } from '../store/repository';
import { jobETag, type JobView, jobView } from '../store/job-view';
import { fingerprintOf, type IdempotencyOptions, IdempotencyStore, type Seal } from './idempotency';
import { toJobItem } from '../store/items';
import type { PictureUrls } from '../../images/picture-urls';
import type { UploadTarget } from '../../images/signed-urls';

/** A file of a create request. */
export interface NewFile {
  fileName: string;
  tags: string[];
  remarkToProcessor: string;
  /** What the customer declared of the original's bytes: S3 then takes those bytes and no others. */
  size?: number;
  /** Base64 SHA-256 of the original. */
  sha256?: string;
}

/** A validated create request. */
export interface CreateJobRequest {
  name: string;
  description: string;
  invoiceReference: string;
  tags: string[];
  /** The account to create the job in: required of an operator; a user's must be its own. */
  accountId: number | undefined;
  /** Operators only. */
  accountName: string | undefined;
  files: NewFile[];
}

/** A created file as `POST /jobs` answers it: its id, and where its original is uploaded to. */
export interface CreatedFile {
  id: number;
  fileName: string;
  upload: UploadTarget;
}

/** The `201` body of `POST /jobs`. */
export interface CreateJobResponseBody {
  _type: 'JobResponseBody';
  job: JobView;
  files: CreatedFile[];
}

/** What a create answers: the body, and the headers that go with it. */
export interface CreatedJob {
  body: CreateJobResponseBody;
  location: string;
  etag: string;
  /** Whether this is the stored answer of an earlier request with the same `Idempotency-Key`. */
  replayed: boolean;
}

/**
 * What an idempotency record keeps of a create: enough to answer it again, bounded whatever the file names
 * (those come from the request, which the fingerprint proves identical). The job is kept as its JSON text,
 * so the answer again has its fields in the same order (a DynamoDB map keeps no order).
 */
interface StoredCreate extends Record<string, unknown> {
  job: string;
  fileIds: number[];
}

export interface CreateJobOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  now?: () => Date;
  /** The clock, the waiting and the wait budget of `Idempotency-Key` records (`idempotency.ts`). */
  idempotency?: IdempotencyOptions;
  /** Signs the files' upload targets; asked for only when the job has files. */
  pictures: () => PictureUrls;
}

/** The account a caller creates a job in, or the refusal (`400` for an operator naming none, `403`). */
export const accountOf = (request: CreateJobRequest, principal: Pick<Principal, 'role' | 'accountId'>): number => {
  const scope = accountScope(principal);
  if (scope === undefined) {
    if (request.accountId === undefined) throw invalidParameter('accountId', 'An operator must name the account.');
    return request.accountId;
  }
  if (request.accountName !== undefined) {
    throw new ApiError('forbidden', {}, { message: 'Only operators may set accountName.' });
  }
  if (request.accountId !== undefined && request.accountId !== scope) {
    throw new ApiError('forbidden', {}, { message: 'A user creates jobs in its own account only.' });
  }
  return scope;
};

/** What a new file declared of its original's bytes (only what it declared). */
const declaredOf = (file: NewFile): { size?: number; sha256?: string } => ({
  ...(file.size === undefined ? {} : { size: file.size }),
  ...(file.sha256 === undefined ? {} : { sha256: file.sha256 }),
});

/** The create use case. */
export class CreateJob {
  private readonly table: JobsTable;
  private readonly repository: JobRepository;
  private readonly now: () => Date;
  private readonly idempotency: IdempotencyOptions;
  private readonly pictures: () => PictureUrls;

  public constructor(options: CreateJobOptions) {
    this.pictures = options.pictures;
    this.now = options.now ?? (() => new Date());
    this.table = new JobsTable(options.client, options.tableName);
    this.repository = new JobRepository(options.client, options.tableName);
    this.idempotency = options.idempotency ?? {};
  }

  /**
   * Creates the job, or — with an `Idempotency-Key` this client used before for the same account — answers the
   * first answer again: the same job and files, each with a fresh upload target (the stored answer keeps no
   * target, whose URL may have expired since; the first answer's targets stay valid until they expire).
   */
  public async run(
    request: CreateJobRequest,
    principal: Pick<Principal, 'role' | 'accountId' | 'clientId' | 'userId'>,
    idempotencyKey?: string,
  ): Promise<CreatedJob> {
    const accountId = accountOf(request, principal);
    if (idempotencyKey === undefined) {
      return this.answer(await this.create(request, accountId), request, accountId, false);
    }
    // What the request asks for, whoever of the account sends it: the account it creates in, named or not.
    const fingerprint = fingerprintOf({ ...request, accountId, accountName: request.accountName ?? '' });
    const { answer, replayed } = await new IdempotencyStore(this.table, this.idempotency).run<StoredCreate>(
      { clientId: principal.clientId, accountId },
      idempotencyKey,
      fingerprint,
      (seal) => this.create(request, accountId, seal),
    );
    return this.answer(answer, request, accountId, replayed);
  }

  /** The answer of a create: the job, and each file with a new upload target of its original. */
  private async answer(
    stored: StoredCreate,
    request: CreateJobRequest,
    accountId: number,
    replayed: boolean,
  ): Promise<CreatedJob> {
    const job = JSON.parse(stored.job) as JobView;
    const pictures = stored.fileIds.length === 0 ? undefined : this.pictures();
    const files = await Promise.all(
      stored.fileIds.map(async (id, index): Promise<CreatedFile> => {
        const file = request.files[index] as NewFile;
        const upload = await (pictures as PictureUrls).uploadTarget(
          { accountId, jobId: job.id, fileId: id },
          'original',
          file.fileName,
          declaredOf(file),
        );
        return { id, fileName: file.fileName, upload };
      }),
    );
    return {
      body: { _type: 'JobResponseBody', job, files },
      location: `/jobs/${job.id}`,
      etag: jobETag(job.version),
      replayed,
    };
  }

  /**
   * Assigns the ids and writes the job; with a `seal`, its idempotency record is completed with the answer in
   * the job item's own transaction.
   */
  private async create(request: CreateJobRequest, accountId: number, seal?: Seal<StoredCreate>): Promise<StoredCreate> {
    const [jobId, ...fileIds] = await idAllocatorFor(this.table).allocate(request.files.length + 1);
    const now = this.now();
    const job: Job = {
      id: jobId as number,
      accountId,
      accountName: request.accountName ?? '',
      status: 'CJ_NEW',
      guid: randomUUID(),
      name: request.name,
      description: request.description,
      invoiceReference: request.invoiceReference,
      tags: request.tags,
      realCost: 0,
      createdDate: now.toISOString(),
      acceptedDate: null,
      orderedDate: null,
      deliveredDate: null,
      reviewedDate: null,
      files: request.files.map((file, index) =>
        unreviewedFile({
          id: fileIds[index] as number,
          fileName: file.fileName,
          tags: file.tags,
          remarkToProcessor: file.remarkToProcessor,
          ...(file.size === undefined && file.sha256 === undefined ? {} : { declaredOriginal: declaredOf(file) }),
        }),
      ),
    };
    const version = now.getTime();
    const answer: StoredCreate = {
      job: JSON.stringify(jobView(toJobItem(job, version))),
      fileIds: fileIds as number[],
    };
    await this.repository.createJob(job, version, seal === undefined ? {} : { commitWith: [seal(answer)] });
    return answer;
  }
}
