/**
 * The body of `POST /reject` (docs/contract.md §5), read from either encoding and checked against every
 * limit. Each violation is a `400 invalid_parameter` naming the offending parameter:
 *
 * - JSON bodies name the nested field with a path: `files`, `files[2]`, `files[2].fileId`,
 *   `files[2].customRejection`, `files[2].rejects`, `files[2].rejects[1].reason`,
 *   `files[2].rejects[1].positions`, `files[2].rejects[1].positions[0].xPercent`.
 * - Form bodies name the flat key: `fileId`, `customRejection`, `reason`.
 *
 * The validators generated from openapi.yaml (`RejectRequest`, `RejectForm`) check the fields; this module
 * adds the form coercion, the rules a schema cannot state (no file twice; a form needs a review) and the
 * typed result.
 */
import { invalidParameter } from './errors';
import { rejectFormFields, validateRejectForm, validateRejectRequest } from './generated/request-validators';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';
import type { FileRejection, Position, RejectReason, RejectRequest } from '../jobs/model/model';

/** The limits of a reject request (openapi.yaml's `RejectRequest` and `RejectForm` enforce them). */
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

export type { FileRejection, RejectRequest } from '../jobs/model/model';

/** A customRejection the schema admitted: absent, null, empty or blank all mean "none". */
const customRejectionOf = (value: string | null | undefined): string | null =>
  value === undefined || value === null || value.trim().length === 0 ? null : value;

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

/** A JSON body once `RejectRequest` admitted it. */
interface JsonRejectBody {
  files: {
    fileId: number;
    customRejection?: string | null;
    rejects?: { reason: string; positions?: Position[] | null }[] | null;
  }[];
}

/**
 * Reads a JSON body: `{"files": [{"fileId", "customRejection"?, "rejects"?: [{"reason", "positions"?}]}]}`.
 * The schema checks every field, in order, and that each file has a (non-blank) customRejection or a
 * reject; duplicates are checked here. Only the contract's fields are kept.
 */
export const parseJsonRejectRequest = (fields: Record<string, unknown>): RejectRequest => {
  const body = { files: fields.files };
  if (!validateRejectRequest(body)) throw invalidParameterOf(validateRejectRequest.errors, 'path');
  const files = (body as JsonRejectBody).files.map((file): FileRejection => ({
    fileId: file.fileId,
    customRejection: customRejectionOf(file.customRejection),
    rejects: (file.rejects ?? []).map((reject): RejectReason => ({
      reason: reject.reason,
      positions: (reject.positions ?? []).map(({ xPercent, yPercent }) => ({ xPercent, yPercent })),
    })),
  }));
  requireDistinct(files, (index) => `files[${index}].fileId`);
  return { files };
};

/** A form body once `RejectForm` admitted it. */
interface FormRejectBody {
  fileId: number[];
  customRejection?: string;
  reason?: string[];
}

/**
 * Reads a form body: `fileId=1&fileId=2&reason=Cropping&reason=Colour&customRejection=…`. Every listed
 * file gets the same review; forms cannot carry positions. The schema checks `fileId`, `customRejection`
 * and `reason` in that order; a review (a reason or a non-blank customRejection) is then required, and no
 * file may be listed twice.
 */
export const parseFormRejectRequest = (fields: Record<string, unknown>): RejectRequest => {
  const coerced = coerceFields({ encoding: 'form', fields }, rejectFormFields);
  if (!validateRejectForm(coerced)) throw invalidParameterOf(validateRejectForm.errors, 'top');
  const form = coerced as unknown as FormRejectBody;
  const customRejection = customRejectionOf(form.customRejection);
  const reasons = form.reason ?? [];
  if (customRejection === null && reasons.length === 0) {
    throw invalidParameter('reason', 'A reason or a customRejection is required.');
  }
  const files = form.fileId.map((fileId) => ({
    fileId,
    customRejection,
    rejects: reasons.map((reason) => ({ reason, positions: [] })),
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
