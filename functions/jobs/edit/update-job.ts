/**
 * Editing a job and moving its status (`PATCH /jobs/{id}`, docs/contract.md §6a) under optimistic
 * concurrency: the request names the version it was decided on (`If-Match`), and the change is one
 * UpdateItem conditioned on that version, so of two editors holding one version exactly one wins and the
 * other is told the job changed (`412`, with the current ETag). Nothing else is ever written.
 *
 * The rules, in the order they answer: `If-Match` names a version (`428` when absent or `*`, `400` naming
 * `If-Match` when malformed, `if-match.ts`); operator-only fields (`403`); the job exists for the caller
 * (`404 job_not_found`); it is not archived (`410 job_archived`: `CJ_ARCHIVED` is terminal, so any PATCH of
 * it — fields or status, user or operator, an empty change too — is refused, whatever version it names, since
 * a fresher version could not change the answer); the version matches (`412`, with the current version in the
 * body as well as in `ETag`); a user edits fields only while the job is `CJ_NEW` or `CJ_REQUEST_OFFER`
 * (`409 job_not_editable`); the status moves along the table of `statuses.ts` (`409 invalid_transition`); a
 * user asks for an offer only once every file's original picture is ready (`409 files_not_ready`, naming the first
 * file in id order that is not: one consistent Query of the job's partition, projected to the files' ids and
 * originals — it consumes the read capacity of the whole partition, about one unit per 4 KB of its items). A
 * value equal to the stored one is no change, and a request that changes nothing answers the job as it is, at
 * its version.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { accountScope, type Principal } from '../../auth/principal';
import { DYNAMODB } from '../../aws/failures';
import { ApiError, DependencyUnavailableError } from '../../errors';
import { jobKeys } from '../../tables';
import type { JobItem } from '../store/items';
import { JobsTable } from '../store/jobs-table';
import type { JobStatus } from '../model/model';
import { versionsOfIfMatch } from './if-match';
import { jobETag, type JobView, jobView } from '../store/job-view';
import { canMove } from '../model/statuses';
import { sameItem } from '../store/write-plan';

/** The fields of an update, each only when sent. */
export interface JobChanges {
  name?: string;
  description?: string;
  invoiceReference?: string;
  tags?: string[];
  status?: JobStatus;
  realCost?: number;
  accountName?: string;
}

/** The fields only operators may change. */
const OPERATOR_FIELDS = ['realCost', 'accountName'] as const;

/** The fields a user may change only while the job is new or waits for an offer. */
const EDITABLE_FIELDS = ['name', 'description', 'invoiceReference', 'tags', 'realCost', 'accountName'] as const;

/** The statuses in which a user may edit the job's fields. */
const USER_EDITABLE_STATUSES: readonly JobStatus[] = ['CJ_NEW', 'CJ_REQUEST_OFFER'];

/** The status a customer asks for an offer with: every file's original must be ready first. */
const OFFER_STATUS: JobStatus = 'CJ_REQUEST_OFFER';

/** The date a status sets when a job enters it. */
const DATE_ON_ENTRY: Partial<Record<JobStatus, 'acceptedDate' | 'orderedDate'>> = {
  CJ_ACCEPT: 'acceptedDate',
  CJ_JOB_PAID: 'orderedDate',
};

/** What an update answers: the job and its ETag. */
export interface UpdatedJob {
  job: JobView;
  etag: string;
}

/**
 * `412 precondition_failed`, carrying the job's current version twice: as the `ETag` header, and as
 * `currentVersion` in the body, where a client that shows only bodies (`curl -s`) still sees it.
 */
const preconditionFailed = (version: number): ApiError =>
  new ApiError(
    'precondition_failed',
    { currentVersion: version },
    {
      headers: { ETag: jobETag(version) },
      message: `The job was changed since the version in If-Match; its current version is ${version}.`,
    },
  );

export const jobNotFound = (): ApiError => new ApiError('job_not_found');

/** `410 job_archived`: an archived job changes no more, whoever asks and whatever the change. */
const jobArchived = (): ApiError =>
  new ApiError('job_archived', {}, { message: 'The job is archived; it changes no more.' });

/** The update use case. */
export class UpdateJob {
  private readonly table: JobsTable;
  private readonly now: () => Date;

  public constructor(options: { client: DynamoDBDocumentClient; tableName: string; now?: () => Date }) {
    this.now = options.now ?? (() => new Date());
    this.table = new JobsTable(options.client, options.tableName, { now: () => this.now().getTime() });
  }

  /** Applies the changes for a caller holding `ifMatch` (the header's value; `undefined` when absent). */
  public async run(
    jobId: number,
    changes: JobChanges,
    ifMatch: string | undefined,
    principal: Pick<Principal, 'role' | 'accountId'>,
  ): Promise<UpdatedJob> {
    const wanted = versionsOfIfMatch(ifMatch);
    if (principal.role !== 'operator') {
      const field = OPERATOR_FIELDS.find((name) => changes[name] !== undefined);
      if (field !== undefined) throw new ApiError('forbidden', {}, { message: `Only operators may set ${field}.` });
    }
    return this.table.underContention(
      async () => {
        const item = (await this.table.getItem({ pk: jobKeys.pk(jobId), sk: jobKeys.jobSk })) as JobItem | undefined;
        const scope = accountScope(principal);
        if (item?.entity !== 'job' || (scope !== undefined && item.accountId !== scope)) throw jobNotFound();
        if (item.status === 'CJ_ARCHIVED') throw jobArchived();
        if (!wanted.includes(item.version)) throw preconditionFailed(item.version);
        const sets = this.plan(item, changes, principal);
        if (Object.keys(sets).length === 0) return { job: jobView(item), etag: jobETag(item.version) };
        if (sets.status === OFFER_STATUS && principal.role !== 'operator') await this.requireReadyOriginals(jobId);
        const updated = await this.write(item, sets);
        return { job: jobView(updated), etag: jobETag(updated.version) };
      },
      (_attempts, lastConflict) => new DependencyUnavailableError(DYNAMODB, lastConflict),
    );
  }

  /**
   * Refuses an offer asked for while a file's original is not ready (`409 files_not_ready`, naming the first such
   * file by id). The images function records pictures on the file items without changing the job's version, so
   * the check reads the files at the moment of the change; an original re-uploaded later (allowed while the job
   * waits for its offer) may still turn out invalid, which `GET /jobs/{id}/files` shows.
   */
  private async requireReadyOriginals(jobId: number): Promise<void> {
    const items = await this.table.readPartition(jobId, true, ['entity', 'id', 'original']);
    const unready = items
      .filter((item) => item.entity === 'file')
      .filter((item) => (item.original as { status?: unknown } | undefined)?.status !== 'ready')
      .map((item) => item.id as number)
      .sort((a, b) => a - b);
    if (unready.length > 0) {
      throw new ApiError(
        'files_not_ready',
        { fileId: unready[0]! },
        { message: `File ${unready[0]} has no ready original picture yet; upload it before asking for an offer.` },
      );
    }
  }

  /** The attributes to set, refusing what the caller may not change; empty when nothing changes. */
  private plan(item: JobItem, changes: JobChanges, principal: Pick<Principal, 'role'>): Record<string, unknown> {
    const sets: Record<string, unknown> = {};
    for (const field of EDITABLE_FIELDS) {
      const value = changes[field];
      const stored = (item as unknown as Record<string, unknown>)[field] ?? (field === 'tags' ? [] : '');
      if (value !== undefined && !sameItem(value, stored)) sets[field] = value;
    }
    if (
      Object.keys(sets).length > 0 &&
      principal.role !== 'operator' &&
      !USER_EDITABLE_STATUSES.includes(item.status)
    ) {
      throw new ApiError('job_not_editable');
    }
    const status = changes.status;
    if (status !== undefined && status !== item.status) {
      if (!canMove(item.status, status, principal.role === 'operator' ? 'operator' : 'user')) {
        throw new ApiError(
          'invalid_transition',
          { parameter: 'status' },
          { message: `The job cannot move from ${item.status} to ${status}.` },
        );
      }
      sets.status = status;
      const date = DATE_ON_ENTRY[status];
      if (date !== undefined) sets[date] = this.now().toISOString();
    }
    return sets;
  }

  /**
   * One UpdateItem conditioned on the version read: a concurrent writer that got there first makes it
   * fail, and the next attempt reads the job again — which then answers `412`, since its version moved on.
   * It writes no file, so a committed delivery still being rolled forward (`pending-delivery.ts`) does
   * not concern it.
   */
  private async write(item: JobItem, sets: Record<string, unknown>): Promise<JobItem> {
    const names: Record<string, string> = { '#version': 'version' };
    const values: Record<string, unknown> = { ':expected': item.version, ':one': 1 };
    const assignments = Object.entries(sets).map(([field, value], index) => {
      names[`#f${index}`] = field;
      values[`:v${index}`] = value;
      return `#f${index} = :v${index}`;
    });
    const attributes = await this.table.updateItem({
      Key: { pk: jobKeys.pk(item.id), sk: jobKeys.jobSk },
      UpdateExpression: `SET ${assignments.join(', ')} ADD #version :one`,
      ConditionExpression: '#version = :expected',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    });
    return attributes as unknown as JobItem;
  }
}
