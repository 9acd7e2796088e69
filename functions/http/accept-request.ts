/**
 * The body of `POST /accept` (docs/contract.md §6a), read from either encoding: JSON `{"fileIds": [1, 2]}`
 * or the form `fileId=1&fileId=2`. The validators generated from openapi.yaml (`AcceptRequest`,
 * `AcceptForm`) check the fields; this module adds the form coercion, the rule a schema cannot state (no
 * file twice, naming the later occurrence) and the typed result. Each violation is `400 invalid_parameter`
 * naming `fileIds`, `fileIds[2]` (JSON) or `fileId` (form).
 */
import type { AcceptRequest } from '../jobs/review/accept';
import { invalidParameter } from './errors';
import { acceptFormFields, validateAcceptForm, validateAcceptRequest } from './generated/request-validators';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';

export type { AcceptRequest } from '../jobs/review/accept';

const requireDistinct = (fileIds: readonly number[], parameterOf: (index: number) => string): void => {
  const seen = new Set<number>();
  fileIds.forEach((fileId, index) => {
    if (seen.has(fileId)) throw invalidParameter(parameterOf(index), `File ${fileId} is listed more than once.`);
    seen.add(fileId);
  });
};

/** The endpoint's `parse` step: the validated request, or `400 invalid_parameter` naming the first bad parameter. */
export const parseAcceptRequest = (body: RequestBody): AcceptRequest => {
  if (body.encoding === 'form') {
    const coerced = coerceFields(body, acceptFormFields);
    if (!validateAcceptForm(coerced)) throw invalidParameterOf(validateAcceptForm.errors, 'top');
    const fileIds = [...(coerced as { fileId: number[] }).fileId];
    requireDistinct(fileIds, () => 'fileId');
    return { fileIds };
  }
  const json = { fileIds: body.fields.fileIds };
  if (!validateAcceptRequest(json)) throw invalidParameterOf(validateAcceptRequest.errors, 'path');
  const fileIds = [...(json as { fileIds: number[] }).fileIds];
  requireDistinct(fileIds, (index) => `fileIds[${index}]`);
  return { fileIds };
};
