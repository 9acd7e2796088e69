/**
 * Generated from openapi.yaml by `npm run generate:validators` (ajv standalone code). Do not edit by hand:
 * change openapi.yaml and run the script again.
 */

import type { FormField, RequestValidator } from '../validator-types';

/** Validates against `components.schemas.SearchRequest`. */
export declare const validateSearchRequest: RequestValidator;
/** Validates against `components.schemas.RejectRequest`. */
export declare const validateRejectRequest: RequestValidator;
/** Validates against `components.schemas.RejectForm`. */
export declare const validateRejectForm: RequestValidator;
/** Validates against `components.schemas.SessionRequest`. */
export declare const validateSessionRequest: RequestValidator;
/** Validates against `components.schemas.AcceptRequest`. */
export declare const validateAcceptRequest: RequestValidator;
/** Validates against `components.schemas.AcceptForm`. */
export declare const validateAcceptForm: RequestValidator;
/** Validates against `components.schemas.CreateJobRequest`. */
export declare const validateCreateJobRequest: RequestValidator;
/** Validates against `components.schemas.CreateJobForm`. */
export declare const validateCreateJobForm: RequestValidator;
/** Validates against `components.schemas.JobUpdateRequest`. */
export declare const validateJobUpdateRequest: RequestValidator;
/** Validates against `components.schemas.DeliveryRequest`. */
export declare const validateDeliveryRequest: RequestValidator;
/** Validates against `components.schemas.DeliveryForm`. */
export declare const validateDeliveryForm: RequestValidator;
/** Validates against `components.schemas.UploadRequest`. */
export declare const validateUploadRequest: RequestValidator;
/** Validates against `components.schemas.WebhookRequest`. */
export declare const validateWebhookRequest: RequestValidator;

/** The top-level properties of `components.schemas.SearchRequest`, in schema order. */
export declare const searchRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.RejectForm`, in schema order. */
export declare const rejectFormFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.SessionRequest`, in schema order. */
export declare const sessionRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.AcceptForm`, in schema order. */
export declare const acceptFormFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.CreateJobRequest`, in schema order. */
export declare const createJobRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.CreateJobForm`, in schema order. */
export declare const createJobFormFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.JobUpdateRequest`, in schema order. */
export declare const jobUpdateRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.DeliveryRequest`, in schema order. */
export declare const deliveryRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.DeliveryForm`, in schema order. */
export declare const deliveryFormFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.UploadRequest`, in schema order. */
export declare const uploadRequestFields: Readonly<Record<string, FormField>>;
/** The top-level properties of `components.schemas.WebhookRequest`, in schema order. */
export declare const webhookRequestFields: Readonly<Record<string, FormField>>;
