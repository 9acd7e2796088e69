/**
 * Reading DynamoDB stream records of the jobs table: which job a record is about, and which version of
 * it the record carries.
 */
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { parseId } from '../jobs/model/ids';
import { jobKeys } from '../tables';

const JOB_PK = /^JOB#([0-9]+)$/;

/**
 * The id of the job a record changed, when the record is about a job item (`pk = JOB#<id>`,
 * `sk = JOB`, the id in the one id range of `jobs/ids.ts`); undefined for anything else (file items,
 * foreign items, malformed records).
 */
export const jobIdOf = (record: DynamoDBRecord): number | undefined => {
  const keys = record.dynamodb?.Keys;
  if (keys?.sk?.S !== jobKeys.jobSk) return undefined;
  const match = JOB_PK.exec(keys.pk?.S ?? '');
  return match === null ? undefined : parseId(match[1] as string);
};

const versionIn = (image: Record<string, AttributeValue> | undefined): number | undefined => {
  const raw = image?.version?.N;
  if (raw === undefined) return undefined;
  const version = Number(raw);
  return Number.isSafeInteger(version) ? version : undefined;
};

/** The highest job version a record's images carry, if any. */
export const versionOf = (record: DynamoDBRecord): number | undefined => {
  const versions = [versionIn(record.dynamodb?.NewImage), versionIn(record.dynamodb?.OldImage)].filter(
    (version): version is number => version !== undefined,
  );
  return versions.length === 0 ? undefined : Math.max(...versions);
};

/** The records of one batch that concern one job. */
export interface JobChange {
  jobId: number;
  records: DynamoDBRecord[];
  /** The highest version any of the records carries (the version of a deleted job's last state). */
  highestVersion: number | undefined;
}

/** A batch sorted into the jobs it changes, plus the records that are not about a job item. */
export interface GroupedRecords {
  /** One entry per distinct job, in order of first appearance. */
  changes: JobChange[];
  ignored: DynamoDBRecord[];
}

/** Sorts a batch's records by the job they change. */
export const groupByJob = (records: readonly DynamoDBRecord[]): GroupedRecords => {
  const changes = new Map<number, JobChange>();
  const ignored: DynamoDBRecord[] = [];
  for (const record of records) {
    const jobId = jobIdOf(record);
    if (jobId === undefined) {
      ignored.push(record);
      continue;
    }
    const change = changes.get(jobId) ?? { jobId, records: [], highestVersion: undefined };
    change.records.push(record);
    const version = versionOf(record);
    if (version !== undefined && (change.highestVersion === undefined || version > change.highestVersion)) {
      change.highestVersion = version;
    }
    changes.set(jobId, change);
  }
  return { changes: [...changes.values()], ignored };
};
