/**
 * The bodies of the job writes of docs/contract.md §6a, JSON or form, checked field by field by the
 * validators generated from openapi.yaml; each violation is `400 invalid_parameter` naming the field
 * (nested JSON fields by path: `files[3].fileName`).
 *
 * - `POST /jobs` (`CreateJobRequest`, `CreateJobForm`): files only in JSON — a form naming `files` is
 *   refused, since a form cannot carry a file's fields.
 * - `PATCH /jobs/{id}` (`JobUpdateRequest`): the fields to change; `realCost` at most two decimals.
 * - `POST /jobs/{id}/delivery` (`DeliveryRequest`, `DeliveryForm`): `fileIds`, no id twice.
 * - `POST /jobs/{id}/files/{fileId}/upload` (`UploadRequest`, JSON or form): the `variant` to upload.
 *
 * Who may send which field (operators only, the account) is not a field check: the use cases answer it
 * with `403 forbidden`, after every field.
 */
import type { JobStatus } from '../jobs/model/model';
import type { CreateJobRequest, NewFile } from '../jobs/create/create-job';
import { invalidParameter } from './errors';
import {
  createJobFormFields,
  createJobRequestFields,
  deliveryFormFields,
  deliveryRequestFields,
  jobUpdateRequestFields,
  uploadRequestFields,
  validateCreateJobForm,
  validateCreateJobRequest,
  validateDeliveryForm,
  validateDeliveryRequest,
  validateJobUpdateRequest,
  validateUploadRequest,
} from './generated/request-validators';
import type { Variant } from '../images/object-keys';
import type { RequestBody } from './request';
import { coerceFields, invalidParameterOf } from './schema-validation';

interface CreateBody {
  name: string;
  description?: string;
  invoiceReference?: string;
  tags?: string[];
  accountId?: number;
  accountName?: string;
  files?: Array<{
    fileName: string;
    tags?: string[] | null;
    remarkToProcessor?: string | null;
    size?: number;
    sha256?: string;
  }>;
}

/** The endpoint's `parse` step of `POST /jobs`. */
export const parseCreateJobRequest = (body: RequestBody): CreateJobRequest => {
  let fields: Record<string, unknown>;
  if (body.encoding === 'form') {
    if (Object.hasOwn(body.fields, 'files')) {
      throw invalidParameter('files', 'files can only be sent in a JSON body.');
    }
    fields = coerceFields(body, createJobFormFields);
    if (!validateCreateJobForm(fields)) throw invalidParameterOf(validateCreateJobForm.errors, 'top');
  } else {
    fields = coerceFields(body, createJobRequestFields);
    if (!validateCreateJobRequest(fields)) throw invalidParameterOf(validateCreateJobRequest.errors, 'path');
  }
  const checked = fields as unknown as CreateBody;
  return {
    name: checked.name,
    description: checked.description ?? '',
    invoiceReference: checked.invoiceReference ?? '',
    tags: checked.tags ?? [],
    accountId: checked.accountId,
    accountName: checked.accountName,
    files: (checked.files ?? []).map((file): NewFile => ({
      fileName: file.fileName,
      tags: file.tags ?? [],
      remarkToProcessor: file.remarkToProcessor ?? '',
      ...(file.size === undefined ? {} : { size: file.size }),
      ...(file.sha256 === undefined ? {} : { sha256: file.sha256 }),
    })),
  };
};

/** A checked `PATCH /jobs/{id}` body: only the fields sent. */
export interface JobUpdate {
  name?: string;
  description?: string;
  invoiceReference?: string;
  tags?: string[];
  status?: JobStatus;
  realCost?: number;
  accountName?: string;
}

/** Whether a cost has at most two decimals (`12.5`, `12.34`; not `12.345`). */
export const hasAtMostTwoDecimals = (value: number): boolean => {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6 * Math.max(1, Math.abs(cents));
};

/** The endpoint's `parse` step of `PATCH /jobs/{id}`. */
export const parseJobUpdate = (body: RequestBody): JobUpdate => {
  const fields = coerceFields(body, jobUpdateRequestFields);
  if (!validateJobUpdateRequest(fields)) {
    throw invalidParameterOf(validateJobUpdateRequest.errors, body.encoding === 'form' ? 'top' : 'path');
  }
  const update = fields as JobUpdate;
  if (update.realCost !== undefined && !hasAtMostTwoDecimals(update.realCost)) {
    throw invalidParameter('realCost', 'realCost may have at most two decimals.');
  }
  return update;
};

/** A checked delivery: the files to deliver, or `undefined` for every file not accepted. */
export interface DeliveryRequest {
  fileIds: number[] | undefined;
}

/** The endpoint's `parse` step of `POST /jobs/{id}/delivery`. */
export const parseDeliveryRequest = (body: RequestBody): DeliveryRequest => {
  let fileIds: number[] | undefined;
  let name = 'fileIds';
  if (body.encoding === 'form') {
    const fields = coerceFields(body, deliveryFormFields);
    if (!validateDeliveryForm(fields)) throw invalidParameterOf(validateDeliveryForm.errors, 'top');
    const form = fields as { fileIds?: number[]; fileId?: number[] };
    if (form.fileIds !== undefined && form.fileId !== undefined) {
      throw invalidParameter('fileId', 'Send the files as fileIds or as fileId, not both.');
    }
    if (form.fileId !== undefined) name = 'fileId';
    fileIds = form.fileIds ?? form.fileId;
  } else {
    const fields = coerceFields(body, deliveryRequestFields);
    if (!validateDeliveryRequest(fields)) throw invalidParameterOf(validateDeliveryRequest.errors, 'path');
    fileIds = (fields as { fileIds?: number[] }).fileIds;
  }
  if (fileIds !== undefined) {
    const seen = new Set<number>();
    fileIds.forEach((fileId, index) => {
      if (seen.has(fileId)) {
        throw invalidParameter(
          body.encoding === 'form' ? name : `fileIds[${index}]`,
          `File ${fileId} is listed more than once.`,
        );
      }
      seen.add(fileId);
    });
  }
  return { fileIds };
};

/** A checked upload request: which picture of the file is to be uploaded. */
export interface UploadRequest {
  variant: Variant;
}

/** The endpoint's `parse` step of `POST /jobs/{id}/files/{fileId}/upload`. */
export const parseUploadRequest = (body: RequestBody): UploadRequest => {
  const fields = coerceFields(body, uploadRequestFields);
  if (!validateUploadRequest(fields)) {
    throw invalidParameterOf(validateUploadRequest.errors, body.encoding === 'form' ? 'top' : 'path');
  }
  return { variant: (fields as unknown as UploadRequest).variant };
};
