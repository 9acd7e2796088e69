/**
 * The body of `POST /reject` (docs/contract.md §5), read from either encoding and checked against every
 * limit. Each violation is a `400 invalid_parameter` naming the offending parameter:
 *
 * - JSON bodies name the nested field with a path: `files`, `files[2]`, `files[2].fileId`,
 *   `files[2].customRejection`, `files[2].rejects`, `files[2].rejects[1].reason`,
 *   `files[2].rejects[1].positions`, `files[2].rejects[1].positions[0].xPercent`.
 * - Form bodies name the flat key: `fileId`, `reason`, `customRejection`.
 */
import type { RequestBody } from './request';
import { invalidParameter } from './errors';
import { isId } from '../jobs/ids';
import type { FileRejection, Position, RejectReason, RejectRequest } from '../jobs/model';

/** The limits of a reject request. */
export const REJECT_LIMITS = {
  /** Files per request. */
  maxFiles: 50,
  /** Characters of a file's `customRejection`. */
  maxCustomRejectionLength: 1000,
  /** Reject reasons per file. */
  maxRejects: 20,
  /** Characters of one `reason`. */
  maxReasonLength: 100,
  /** Positions per reason. */
  maxPositions: 50,
} as const;

export type { FileRejection, RejectRequest } from '../jobs/model';

/** Length in characters (code points), so an emoji counts once. */
const characters = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

const isBlank = (text: string): boolean => text.trim().length === 0;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A present, non-null value (`undefined` and JSON `null` both mean "not given"). */
const given = (value: unknown): boolean => value !== undefined && value !== null;

const readFileId = (value: unknown, parameter: string): number => {
  if (!isId(value)) {
    throw invalidParameter(parameter, `${parameter} must be a positive integer.`);
  }
  return value;
};

/** A customRejection: absent, null, empty or blank all mean "none". */
const readCustomRejection = (value: unknown, parameter: string): string | null => {
  if (!given(value)) return null;
  if (typeof value !== 'string') throw invalidParameter(parameter, `${parameter} must be a string.`);
  if (isBlank(value)) return null;
  if (characters(value) > REJECT_LIMITS.maxCustomRejectionLength) {
    throw invalidParameter(
      parameter,
      `${parameter} must be at most ${REJECT_LIMITS.maxCustomRejectionLength} characters long.`,
    );
  }
  return value;
};

const readReason = (value: unknown, parameter: string): string => {
  if (typeof value !== 'string' || isBlank(value) || characters(value) > REJECT_LIMITS.maxReasonLength) {
    throw invalidParameter(
      parameter,
      `${parameter} must be a text of 1 to ${REJECT_LIMITS.maxReasonLength} characters.`,
    );
  }
  return value;
};

const readCoordinate = (value: unknown, parameter: string): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalidParameter(parameter, `${parameter} must be a number from 0 to 1.`);
  }
  return value;
};

const readPosition = (value: unknown, parameter: string): Position => {
  if (!isRecord(value)) throw invalidParameter(parameter, `${parameter} must be an object.`);
  return {
    xPercent: readCoordinate(value.xPercent, `${parameter}.xPercent`),
    yPercent: readCoordinate(value.yPercent, `${parameter}.yPercent`),
  };
};

const readPositions = (value: unknown, parameter: string): Position[] => {
  if (!given(value)) return [];
  if (!Array.isArray(value) || value.length > REJECT_LIMITS.maxPositions) {
    throw invalidParameter(
      parameter,
      `${parameter} must be a list of at most ${REJECT_LIMITS.maxPositions} positions.`,
    );
  }
  return value.map((position, index) => readPosition(position, `${parameter}[${index}]`));
};

const readReject = (value: unknown, parameter: string): RejectReason => {
  if (!isRecord(value)) throw invalidParameter(parameter, `${parameter} must be an object.`);
  return {
    reason: readReason(value.reason, `${parameter}.reason`),
    positions: readPositions(value.positions, `${parameter}.positions`),
  };
};

/** The rejects of a JSON file entry: absent, null or `[]` mean "none"; otherwise 1–20 reasons. */
const readRejects = (value: unknown, parameter: string): RejectReason[] => {
  if (!given(value)) return [];
  if (!Array.isArray(value) || value.length > REJECT_LIMITS.maxRejects) {
    throw invalidParameter(parameter, `${parameter} must be a list of at most ${REJECT_LIMITS.maxRejects} rejects.`);
  }
  return value.map((reject, index) => readReject(reject, `${parameter}[${index}]`));
};

const requireSomeReview = (file: FileRejection, parameter: string): FileRejection => {
  if (file.customRejection === null && file.rejects.length === 0) {
    throw invalidParameter(parameter, `${parameter} needs a customRejection or at least one reject.`);
  }
  return file;
};

/** Refuses a file listed twice, naming the later occurrence. */
const requireDistinct = (files: FileRejection[], parameterOf: (index: number) => string): void => {
  const seen = new Set<number>();
  files.forEach((file, index) => {
    if (seen.has(file.fileId)) {
      throw invalidParameter(parameterOf(index), `File ${file.fileId} is listed more than once.`);
    }
    seen.add(file.fileId);
  });
};

const readJsonFile = (value: unknown, parameter: string): FileRejection => {
  if (!isRecord(value)) throw invalidParameter(parameter, `${parameter} must be an object.`);
  return requireSomeReview(
    {
      fileId: readFileId(value.fileId, `${parameter}.fileId`),
      customRejection: readCustomRejection(value.customRejection, `${parameter}.customRejection`),
      rejects: readRejects(value.rejects, `${parameter}.rejects`),
    },
    parameter,
  );
};

/** Reads a JSON body: `{"files": [{"fileId", "customRejection"?, "rejects"?: [{"reason", "positions"?}]}]}`. */
export const parseJsonRejectRequest = (fields: Record<string, unknown>): RejectRequest => {
  const files = fields.files;
  if (!Array.isArray(files) || files.length === 0 || files.length > REJECT_LIMITS.maxFiles) {
    throw invalidParameter('files', `files must be a list of 1 to ${REJECT_LIMITS.maxFiles} files.`);
  }
  const parsed = files.map((file, index) => readJsonFile(file, `files[${index}]`));
  requireDistinct(parsed, (index) => `files[${index}].fileId`);
  return { files: parsed };
};

/** A form value as a list: one occurrence is a one-element list. */
const formList = (value: unknown): unknown[] => {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
};

const DECIMAL = /^[0-9]+$/;

const readFormFileId = (value: unknown): number => {
  if (typeof value !== 'string' || !DECIMAL.test(value.trim())) {
    throw invalidParameter('fileId', 'fileId must be a positive integer.');
  }
  return readFileId(Number(value.trim()), 'fileId');
};

/**
 * Reads a form body: `fileId=1&fileId=2&reason=Cropping&reason=Colour&customRejection=…`. Every listed
 * file gets the same review; forms cannot carry positions.
 */
export const parseFormRejectRequest = (fields: Record<string, unknown>): RejectRequest => {
  const fileIds = formList(fields.fileId);
  if (fileIds.length === 0 || fileIds.length > REJECT_LIMITS.maxFiles) {
    throw invalidParameter('fileId', `fileId must be given 1 to ${REJECT_LIMITS.maxFiles} times.`);
  }
  const customRejections = formList(fields.customRejection);
  if (customRejections.length > 1) {
    throw invalidParameter('customRejection', 'customRejection must be given at most once.');
  }
  const customRejection = readCustomRejection(customRejections[0], 'customRejection');
  const reasons = formList(fields.reason);
  if (reasons.length > REJECT_LIMITS.maxRejects) {
    throw invalidParameter('reason', `reason must be given at most ${REJECT_LIMITS.maxRejects} times.`);
  }
  const rejects = reasons.map((reason) => ({ reason: readReason(reason, 'reason'), positions: [] }));
  if (customRejection === null && rejects.length === 0) {
    throw invalidParameter('reason', 'A reason or a customRejection is required.');
  }
  const files = fileIds.map((value) => ({
    fileId: readFormFileId(value),
    customRejection,
    rejects: rejects.map((reject) => ({ ...reject, positions: [] })),
  }));
  requireDistinct(files, () => 'fileId');
  return { files };
};

/**
 * The endpoint's `parse` step: the validated request, or `400 invalid_parameter` naming the first
 * offending parameter.
 */
export const parseRejectRequest = (body: RequestBody): RejectRequest =>
  body.encoding === 'form' ? parseFormRejectRequest(body.fields) : parseJsonRejectRequest(body.fields);
