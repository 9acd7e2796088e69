/**
 * Generated from openapi.yaml by `npm run generate:client` (openapi-typescript). Do not edit by hand:
 * change openapi.yaml and run the script again.
 */

export interface paths {
    "/search/fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the search fields the caller may use
         * @description The fields the caller's role may search in, ordered by `seqno`. A field's `id` (or its `name`, in
         *     any case) is a valid `field` of `POST /search`. Needs the `search` grant.
         */
        get: operations["listSearchFields"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search jobs
         * @description Finds the jobs the caller may see that match a query in a search field, a status list and date
         *     ranges, one page at a time. Needs the `search` grant.
         *
         *     - **Text fields** (`JobName`, `FileName`, `JobInstruction`, `JobTags`, `FileTags`,
         *       `FileInstruction`, `InvoiceReference`, `AccountName`): the query is cut into words (letters and
         *       digits; case and diacritics ignored, so `cafe` finds `Café`); a job matches when every word is a
         *       prefix of some word of the field (`spr cat` finds `Spring catalogue`). File names split on
         *       punctuation too (`test15` finds `cem_test15.jpg`).
         *     - **Exact fields**: `JobNumber` and `AccountNumber` take an integer (anything else matches
         *       nothing); `Guid` takes the whole GUID, in any case.
         *     - **Global**: every word prefix-matches somewhere in the text fields the role may use (words may
         *       match different fields), or the whole query equals the job number or the GUID.
         *
         *     Results are ordered by `createdDate`, newest first, then `id` descending, stable across pages.
         *     `totalJobs` is the exact count of all matches; a page past the end answers `jobs: []`.
         *     A change to a job reaches search after the indexing delay.
         */
        post: operations["searchJobs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject edited files
         * @description Rejects edited files so the editor reworks them. Needs the `reject` grant.
         *
         *     All or nothing: every listed file is rejected, or none is. A refusal names the first offending
         *     `fileId`: `404 file_not_found` (unknown, or another account's), `410 job_archived` (its job is
         *     `CJ_ARCHIVED`), `409 file_not_rejectable` (its job is not in review — `CJ_REVIEWING`,
         *     `CJ_FINISHED`, `CJ_REJECT_READY`, `CJ_REJECT_ERROR` — the customer already accepted the file, the
         *     file was never delivered — one created through the API that no delivery has named yet — or its
         *     review history has no room for another review: a file's item is kept under 380,000 bytes and
         *     one request's transaction under 3,500,000 bytes, see docs/reject.md).
         *
         *     Each file becomes rejected and reviewed with `reviewDate` now; its review (`customRejection`,
         *     `rejects`) is stored and an earlier review is kept in its history. `rejectionReason` is
         *     `" - "` followed by the reasons joined by `" - "`, or the custom rejection when there are no
         *     reasons. Each job touched becomes `CJ_REJECT_READY` with `reviewedDate` now; search sees the
         *     change after the indexing delay. Sending the same review again changes nothing and answers 200.
         */
        post: operations["rejectFiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a job
         * @description Creates a job, with up to 1,000 files, in the caller's account (a user's is its session's account;
         *     an operator names `accountId`, and only an operator may set `accountName`: `403 forbidden`
         *     otherwise, checked after every field). Needs the `jobs` grant.
         *
         *     The service assigns the job's and each file's `id` (new integers that no job or file has or had,
         *     never one an import wrote), a random `guid`, status `CJ_NEW`, `createdDate` now, `realCost` 0 and
         *     every other date `null`; the files are unreviewed and in no review state yet. The job becomes
         *     visible — to `GET /jobs/{id}`, to search after the indexing delay — only once complete.
         *
         *     Files need the JSON body; a form body creates a job without files (`tags` as repeated keys).
         *
         *     `Idempotency-Key` makes a create safe to retry: the same key from the same client for the same
         *     account within 24 hours answers the first answer again (status, headers and body) and creates
         *     nothing; the same key for that account with another body is `409 idempotency_key_reused`; a session
         *     of another account never meets the key (there it creates a job of its own); concurrent requests with
         *     one key create one job.
         */
        post: operations["createJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a job
         * @description The job with its review counts, read strongly consistently (a write is visible the moment it
         *     answered, unlike search). Needs the `jobs` grant. Another account's job is `404 job_not_found`,
         *     exactly like one that does not exist. `ETag` is the job's version; `If-None-Match` with it answers
         *     `304` with no body.
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Edit a job or move its status
         * @description Changes the fields sent, under optimistic concurrency: `If-Match` must carry the job's current
         *     `ETag` (`428 precondition_required` without it or with `*`, which names no version;
         *     `400 invalid_parameter` naming `If-Match` when it is not a list of strong, quoted ETags — an unquoted
         *     `1764147600000` or a weak `W/"1764147600000"`; `412 precondition_failed` with another version,
         *     carrying the current version as `ETag` and as `currentVersion` in the body). Needs the `jobs` grant.
         *
         *     `realCost` (≥ 0, at most two decimals) and `accountName` are for operators (`403 forbidden` for a
         *     user). A user edits fields only while the job is `CJ_NEW` or `CJ_REQUEST_OFFER`
         *     (`409 job_not_editable`). `status` moves only along the table of `GET /statuses`
         *     (`409 invalid_transition`); entering `CJ_ACCEPT` sets `acceptedDate`, `CJ_JOB_PAID` `orderedDate`.
         *     A value equal to the stored one is no change; a request that changes nothing answers the job
         *     unchanged. The change is one write conditioned on the version: of two edits holding one version,
         *     exactly one wins. An archived job changes no more: any PATCH of it (fields or status, by a user or an
         *     operator, an empty change too) is `410 job_archived`, whatever version `If-Match` names. Checks in
         *     order: fields (400), `If-Match` present and naming a version (428), well formed (400), operator fields
         *     (403), the job (404), archived (410), the version (412), editable (409), the move (409), and for a user
         *     asking for an offer (`CJ_REQUEST_OFFER`) every file's original picture ready (`409 files_not_ready`,
         *     naming the first file by id whose original is missing or invalid).
         */
        patch: operations["updateJob"];
        trace?: never;
    };
    "/jobs/{id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a job's files for review
         * @description A page of the job's files in id order, each with its review and earlier reviews. Needs the `jobs`
         *     grant. `review` keeps the files of one state: `pending` (delivered, not yet reviewed), `rejected`
         *     or `accepted`. `nextCursor` continues the listing and is `null` on the last page; a cursor is
         *     bound to the job, the filter and the caller, and a changed one or one from another listing is
         *     `400 invalid_parameter` naming `cursor`. A page reads no more than `limit` files whatever the filter.
         *     A page may hold fewer than `limit` files while more follow: it ends early, with a `nextCursor`, before
         *     its files would pass what one response carries (about 5 MiB of heavily reviewed files); only
         *     `nextCursor: null` says the listing is complete.
         */
        get: operations["listJobFiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/statuses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the job statuses
         * @description Every job status in lifecycle order with a description, and `next`: the statuses the caller's
         *     role may set from it with `PATCH /jobs/{id}`. Needs a valid session and no grant.
         */
        get: operations["listStatuses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{id}/delivery": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver edited files for review (operators)
         * @description Staff hand the edited files to the customer: each file goes back to review (`isReviewed` and
         *     `isRejected` false, `rejectionReason` null, its current review moved to `previousReviews`, which
         *     keeps the 5 most recent) and the job becomes `CJ_REVIEWING` with `deliveredDate` now. Without
         *     `fileIds`, every file not accepted is delivered. Operators only (`403 forbidden`); the `jobs` grant.
         *
         *     Allowed from `CJ_WORK_PROGRESS`, `CJ_REJECT_READY` and `CJ_REJECT_ERROR` (else
         *     `409 invalid_transition`). Checks in order: the job (404 `job_not_found`), its status (409), then each
         *     file in request order (id order without `fileIds`): of the job (404 `file_not_found`), not accepted and
         *     its edited picture ready (409 `file_not_deliverable`).
         *     All or nothing, up to 1,000 files: a delivery that fails answers `503` and is safe to send again.
         */
        post: operations["deliverFiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/jobs/{id}/files/{fileId}/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A fresh upload target for a file's picture
         * @description A new target to upload one picture of a file to, valid one hour (`POST /jobs` answers the first target
         *     of each original). Needs the `jobs` grant. `original` is the customer's picture: a session of the job's
         *     account, while the job is `CJ_NEW` or `CJ_REQUEST_OFFER` (else `409 job_not_editable`). `edited` is staff's
         *     edited version: operators only (a user is `403 forbidden`), while the job is `CJ_WORK_PROGRESS`,
         *     `CJ_REJECT_READY` or `CJ_REJECT_ERROR` (else `409 invalid_transition`). A file that declared its `size`
         *     and `sha256` when created gets a PUT target of its original binding both.
         *
         *     Checks in order: a user asking for `edited` (403), the job (404 `job_not_found`, another account's
         *     alike), an operator asking for another account's `original` (403), the job's status (409), the file
         *     (404 `file_not_found` naming it). Nothing is written: each target names a new upload, and the picture is
         *     recorded once its bytes arrive and were checked; a re-upload replaces the picture.
         */
        post: operations["requestUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept edited files
         * @description The customer accepts edited files. Needs the `reject` grant (it covers the customer's review).
         *
         *     All or nothing, with the checks and refusals of `POST /reject`, naming the first offending
         *     `fileId`: `404 file_not_found` (unknown, or another account's), `410 job_archived`, `409
         *     file_not_acceptable` (its job is not in review — `CJ_REVIEWING`, `CJ_FINISHED`, `CJ_REJECT_READY`,
         *     `CJ_REJECT_ERROR` —, the file was never delivered — a file no delivery has named can be neither
         *     accepted nor rejected —, or the items the request's transaction touches would add up past its size
         *     budget, as for a rejection: accept fewer files per request). Each file becomes `acceptedByUser`, reviewed and not rejected
         *     (`rejectionReason` null), `reviewDate` now; its `reviews` and `previousReviews` stay as they were.
         *     Each job touched gets `reviewedDate` now and becomes `CJ_FINISHED` once every file of it is
         *     accepted. Accepting an accepted file again changes nothing.
         */
        post: operations["acceptFiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a session for a user of the application (server to server)
         * @description The application's backend opens a session for a person it has just signed in, with the client token
         *     and one of the client's secrets (never shipped to a browser or an app). Needs the `sessions` grant.
         *     Checks in order: route, `Accept` (406), `Content-Type` (415), `X-Client-Token` then
         *     `X-Client-Secret` present (400), client known and enabled and the secret one of its unrevoked,
         *     unexpired secrets (`401 invalid_client`, whichever part was wrong), grant (403), body size (413),
         *     parse (400), fields (400 `invalid_parameter`), then the role one the client may open (403).
         *     `ttlSeconds` is at most 2,592,000 (30 days) for a user, 43,200 (12 hours) for an operator and the
         *     client's own cap; by default 86,400 shortened to those caps. The session works on the very next
         *     request. Renewal is a new session and a logout of the old one.
         */
        post: operations["openSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sessions/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Log out (end the calling session)
         * @description Ends the session of the `X-Session-Token`, if it was issued to the calling client. No grant and no
         *     body needed. The same request again answers `401 invalid_session`.
         */
        delete: operations["endSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the client's webhooks
         * @description Every webhook of the calling client, oldest first, without secrets. `enabled` is `false` for an
         *     endpoint that failed every attempt for 5 days (`disabledAt` says when it was disabled); register it
         *     again once it answers.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Register a webhook endpoint (server to server)
         * @description Registers an endpoint that receives the events of the client's accounts, of the types listed, as
         *     Standard Webhooks `POST`s signed with the secret answered here (shown only here). Authenticated like
         *     `POST /sessions`: the client token and one of the client's secrets; needs the `webhooks` grant. The URL
         *     must be `https` and its host must not resolve to a loopback, private, link-local or metadata address
         *     (`400 invalid_parameter` naming `url`); at most 2,048 characters. A client has at most 10 webhooks
         *     (`409 webhook_limit_reached`).
         */
        post: operations["registerWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a webhook
         * @description Removes one of the client's webhooks; no event is delivered to it afterwards (an attempt already under
         *     way may still arrive). Another client's webhook answers `404 webhook_not_found`, as an unknown one does.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The recent delivery attempts of a webhook
         * @description The webhook's most recent 50 attempts of the last 7 days, newest first: each event's attempts are
         *     numbered from 1; `status` is `delivered` (a 2xx within 10 s), `retrying` (failed; `nextAttemptAt` says
         *     when the next attempt is due) or `failed` (the last attempt, 24 hours after the first: the event is
         *     dropped).
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description The status of a job, in lifecycle order.
         * @enum {string}
         */
        JobStatus: "CJ_NEW" | "CJ_REQUEST_OFFER" | "CJ_ACCEPT" | "CJ_PREPROCESS" | "CJ_JOB_PAID" | "CJ_WORK_PROGRESS" | "CJ_REVIEWING" | "CJ_REJECT_READY" | "CJ_REJECT_ERROR" | "CJ_FINISHED" | "CJ_ARCHIVED" | "ERROR";
        /** @enum {string} */
        SearchFieldId: "Global" | "AccountNumber" | "AccountName" | "JobNumber" | "JobName" | "FileName" | "JobInstruction" | "JobTags" | "FileTags" | "FileInstruction" | "InvoiceReference" | "Guid";
        /**
         * Format: date-time
         * @description An instant in UTC with milliseconds.
         * @example 2016-05-06T15:22:02.860Z
         */
        UtcDateTime: string;
        /**
         * @description ISO 8601 with `Z` or `±hh:mm` and 0–9 fractional digits (`2016-01-14T14:57:33.8931021+01:00`), or
         *     a date alone (`2016-01-14`, midnight UTC). Impossible dates and times without a zone are invalid.
         *     `null` is the same as absent.
         * @example 2016-01-14T14:57:33.8931021+01:00
         * @example 2016-01-14
         */
        RequestDateTime: string | null;
        /**
         * @description The body of `POST /search`. Every field is optional, `null` is the same as absent and unknown
         *     fields are ignored. `(page + 1) × pageSize` may be at most 10 000 (else `invalid_parameter` with
         *     `parameter: page`); `dateFrom` after `dateTo` names `dateTo`, and likewise for the delivered range.
         */
        SearchRequest: {
            /**
             * @description A field `id` (or its `name`) from `GET /search/fields` for the caller's role, in any case.
             * @default Global
             * @example JobName
             */
            field?: string | null;
            /**
             * @description The text to search for; empty means no text condition. It is cut into words (runs of letters and digits); repeated words and words that start another word of the query are dropped, and more than 32 words remaining is `400 invalid_parameter` naming `query`.
             * @default
             */
            query?: string | null;
            /**
             * Format: int32
             * @description The 0-based page number; `(page + 1) × pageSize` may be at most 10 000.
             * @default 0
             */
            page?: number | null;
            /**
             * Format: int32
             * @description Jobs per page (an extension of the original interface).
             * @default 20
             */
            pageSize?: number | null;
            /** @description Only jobs in one of these statuses; absent or empty means every status. */
            statuses?: components["schemas"]["JobStatus"][] | null;
            /** @description Only jobs created at or after this instant. */
            dateFrom?: components["schemas"]["RequestDateTime"];
            /** @description Only jobs created before this instant. */
            dateTo?: components["schemas"]["RequestDateTime"];
            /** @description Only jobs delivered at or after this instant (a job never delivered does not match). */
            deliveredDateFrom?: components["schemas"]["RequestDateTime"];
            /** @description Only jobs delivered before this instant (a job never delivered does not match). */
            deliveredDateTo?: components["schemas"]["RequestDateTime"];
        };
        /** @description A job as search returns it. Datetimes are UTC; unset dates are `null`. */
        JobSummary: {
            /**
             * Format: int64
             * @description The job number (an id from 1 to 2^53 − 1).
             */
            id: number;
            /**
             * Format: int64
             * @description The account that owns the job.
             */
            accountId: number;
            status: components["schemas"]["JobStatus"];
            /** Format: uuid */
            guid: string;
            name: string;
            /** @description The job's instruction; may be empty. */
            description: string;
            acceptedDate: components["schemas"]["UtcDateTime"] | null;
            createdDate: components["schemas"]["UtcDateTime"];
            deliveredDate: components["schemas"]["UtcDateTime"] | null;
            orderedDate: components["schemas"]["UtcDateTime"] | null;
            reviewedDate: components["schemas"]["UtcDateTime"] | null;
            /** @description The cost of the job. */
            realCost: number;
            /**
             * Format: int32
             * @description The number of files of the job.
             */
            fileCount: number;
        };
        SearchResponseBody: {
            /** @constant */
            _type: "SearchResponseBody";
            /**
             * Format: int64
             * @description The exact number of all matching jobs.
             */
            totalJobs: number;
            /** @description The jobs of the requested page, newest `createdDate` first, then `id` descending. */
            jobs: components["schemas"]["JobSummary"][];
        };
        SearchField: {
            id: components["schemas"]["SearchFieldId"];
            /** @description The display name; also accepted as `field`. */
            name: string;
            isOperatorOnly: boolean;
            isUserOnly: boolean;
            /**
             * Format: int32
             * @description The display order.
             */
            seqno: number;
        };
        SearchFieldsResponseBody: {
            /** @constant */
            _type: "SearchFieldsResponseBody";
            fields: components["schemas"]["SearchField"][];
        };
        /** @description A point on the image, each coordinate a fraction of its width or height. */
        Position: {
            xPercent: number;
            yPercent: number;
        };
        RejectReason: {
            /**
             * @description Why the file is rejected; not blank.
             * @example Cropping
             */
            reason: string;
            positions?: components["schemas"]["Position"][] | null;
        };
        /** @description One file to reject, with at least one of `customRejection` or `rejects`. */
        FileRejection: {
            /** Format: int64 */
            fileId: number;
            /** @description Free text for the editor; blank means none. */
            customRejection?: string | null;
            rejects?: components["schemas"]["RejectReason"][] | null;
        } | {
            customRejection: string;
        } | {
            rejects: components["schemas"]["RejectReason"][];
        };
        /** @description The JSON body of `POST /reject`. No file may be listed twice. */
        RejectRequest: {
            files: components["schemas"]["FileRejection"][];
        };
        /**
         * @description The form body of `POST /reject`: every listed file gets the same reasons (no positions). At least
         *     one `reason` or a `customRejection` is required.
         */
        RejectForm: {
            fileId: number[];
            /** @description Free text for the editor; blank means none. */
            customRejection?: string;
            reason?: string[];
        };
        RejectedFile: {
            /** Format: int64 */
            fileId: number;
            /** Format: int64 */
            jobId: number;
            isRejected: boolean;
            /** @description `" - "` and the reasons joined by `" - "`, or the custom rejection when there are no reasons. */
            rejectionReason: string;
            reviewDate: components["schemas"]["UtcDateTime"];
        };
        RejectedJob: {
            /** Format: int64 */
            id: number;
            status: components["schemas"]["JobStatus"];
        };
        RejectResponseBody: {
            /** @constant */
            _type: "RejectResponseBody";
            /** @description The files, in request order. */
            files: components["schemas"]["RejectedFile"][];
            /** @description Each job touched, once, in order of first appearance. */
            jobs: components["schemas"]["RejectedJob"][];
        };
        /** @description How many of the job's files wait for review (delivered, not yet reviewed), were rejected, or were accepted. */
        ReviewCounts: {
            /** Format: int32 */
            pending: number;
            /** Format: int32 */
            rejected: number;
            /** Format: int32 */
            accepted: number;
        };
        /** @description A job, without its files. Datetimes are UTC; unset dates are `null`. */
        Job: {
            /** Format: int64 */
            id: number;
            /** Format: int64 */
            accountId: number;
            accountName: string;
            status: components["schemas"]["JobStatus"];
            /** Format: uuid */
            guid: string;
            name: string;
            description: string;
            invoiceReference: string;
            tags: string[];
            realCost: number;
            createdDate: components["schemas"]["UtcDateTime"];
            acceptedDate: components["schemas"]["UtcDateTime"] | null;
            orderedDate: components["schemas"]["UtcDateTime"] | null;
            deliveredDate: components["schemas"]["UtcDateTime"] | null;
            reviewedDate: components["schemas"]["UtcDateTime"] | null;
            /** Format: int32 */
            fileCount: number;
            /**
             * Format: int64
             * @description Changes with every change of the job or its files; the `ETag` is this number, quoted.
             */
            version: number;
            review: components["schemas"]["ReviewCounts"];
        };
        JobResponseBody: {
            /** @constant */
            _type: "JobResponseBody";
            job: components["schemas"]["Job"];
        };
        /** @description The answer of `POST /jobs`; `files` holds the created files' ids in request order. */
        JobCreatedResponseBody: {
            /** @constant */
            _type: "JobResponseBody";
            job: components["schemas"]["Job"];
            files: {
                /** Format: int64 */
                id: number;
                fileName: string;
                upload: components["schemas"]["UploadTarget"];
            }[];
        };
        /**
         * @description Where and how to send a picture's bytes straight to storage (no byte passes through the API), valid one
         *     hour (`expiresAt`). A presigned POST: send a `multipart/form-data` POST to `url` with every entry of
         *     `fields` first, then the file as the entry `file`; the policy binds the key, the size range (1 byte to
         *     200 MB, or exactly the declared `size`) and the `Content-Type`. A presigned PUT (a file that declared
         *     `size` and `sha256`): send the bytes as the body of a PUT to `url` with every header of `headers`;
         *     storage refuses any other bytes. Each target names a new upload of one variant of one file and nothing
         *     else.
         */
        UploadTarget: components["schemas"]["PostUploadTarget"] | components["schemas"]["PutUploadTarget"];
        PostUploadTarget: {
            /** Format: uri */
            url: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            method: "POST";
            /** @description The form fields to send before the file, in any order. */
            fields: {
                [key: string]: string;
            };
            expiresAt: components["schemas"]["UtcDateTime"];
        };
        PutUploadTarget: {
            /** Format: uri */
            url: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            method: "PUT";
            /** @description The headers to send with the bytes (`Content-Type`, `x-amz-checksum-sha256`). */
            headers: {
                [key: string]: string;
            };
            expiresAt: components["schemas"]["UtcDateTime"];
        };
        /** @description The body of `POST /jobs/{id}/files/{fileId}/upload`, JSON or form. */
        UploadRequest: {
            /**
             * @description `original`, the customer's picture, or `edited`, staff's edited version.
             * @enum {string}
             */
            variant: "original" | "edited";
        };
        /**
         * @description A fresh upload target of one picture of one file: the target's fields at the top level, and the same
         *     target as `upload` (the shape `POST /jobs` answers for each file).
         */
        UploadTargetResponseBody: {
            /** @constant */
            _type: "UploadTargetResponseBody";
            jobId: components["schemas"]["Id"];
            fileId: components["schemas"]["Id"];
            /** @enum {string} */
            variant: "original" | "edited";
            /** Format: uri */
            url: string;
            /** @enum {string} */
            method: "POST" | "PUT";
            /** @description With `method` POST, the form fields to send before the file. */
            fields?: {
                [key: string]: string;
            };
            /** @description With `method` PUT, the headers to send with the bytes. */
            headers?: {
                [key: string]: string;
            };
            expiresAt: components["schemas"]["UtcDateTime"];
            upload: components["schemas"]["UploadTarget"];
        };
        JobTags: string[];
        /** @description One file of a new job. */
        NewJobFile: {
            /** @example shoe_front.jpg */
            fileName: string;
            tags?: components["schemas"]["JobTags"];
            /** @description The customer's instruction to the editor for this file. */
            remarkToProcessor?: string;
            /**
             * Format: int64
             * @description The original's size in bytes (at most 200 MB), when the customer knows it: its upload target then takes
             *     exactly this many bytes.
             */
            size?: number;
            /**
             * @description The SHA-256 of the original, base64 (32 bytes, 44 characters). With `size`, the upload target is a
             *     presigned PUT that binds both: S3 refuses any other bytes.
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            sha256?: string;
        };
        /**
         * @description The JSON body of `POST /jobs`. `accountId` is required of an operator; a user may only name its own
         *     account. `accountName` is for operators only.
         */
        CreateJobRequest: {
            /** @example Spring catalogue */
            name: string;
            /** @default  */
            description?: string;
            /** @default  */
            invoiceReference?: string;
            tags?: components["schemas"]["JobTags"];
            /** Format: int64 */
            accountId?: number;
            /** @default  */
            accountName?: string;
            /** @description The job's files, at most 1,000; their ids are answered in this order. */
            files?: components["schemas"]["NewJobFile"][];
        };
        /**
         * @description The form body of `POST /jobs`: the job's fields without files (files need the JSON body); `tags` as
         *     repeated keys.
         */
        CreateJobForm: {
            name: string;
            description?: string;
            invoiceReference?: string;
            tags?: components["schemas"]["JobTags"];
            /** Format: int64 */
            accountId?: number;
            accountName?: string;
        };
        /**
         * @description The body of `PATCH /jobs/{id}` (JSON or form): the fields to change. `realCost` and `accountName`
         *     are for operators only.
         */
        JobUpdateRequest: {
            name?: string;
            description?: string;
            invoiceReference?: string;
            tags?: components["schemas"]["JobTags"];
            status?: components["schemas"]["JobStatus"];
            /** @description At most two decimals. */
            realCost?: number;
            accountName?: string;
        };
        /**
         * @description The body of `POST /jobs/{id}/delivery` (JSON; a form sends repeated `fileIds` or `fileId`). Without
         *     `fileIds`, every file of the job that is not accepted is delivered. No file may be listed twice.
         */
        DeliveryRequest: {
            fileIds?: number[];
        };
        /** @description The form body of `POST /jobs/{id}/delivery`. */
        DeliveryForm: {
            fileIds?: number[];
            fileId?: number[];
        };
        /** @description The JSON body of `POST /accept`. No file may be listed twice. */
        AcceptRequest: {
            fileIds: components["schemas"]["Id"][];
        };
        /** @description The form body of `POST /accept`: `fileId=1&fileId=2`. No file may be listed twice. */
        AcceptForm: {
            fileId: components["schemas"]["Id"][];
        };
        /** Format: int64 */
        Id: number;
        AcceptedFile: {
            fileId: components["schemas"]["Id"];
            jobId: components["schemas"]["Id"];
            acceptedByUser: boolean;
            reviewDate: components["schemas"]["NullableDateTime"];
        };
        AcceptResponseBody: {
            /** @constant */
            _type: "AcceptResponseBody";
            /** @description The files, in request order. */
            files: components["schemas"]["AcceptedFile"][];
            /** @description Each job touched, once, in order of first appearance, with its status afterwards. */
            jobs: components["schemas"]["RejectedJob"][];
        };
        /** @description A UTC datetime, or `null` when unset. */
        NullableDateTime: components["schemas"]["UtcDateTime"] | null;
        /** @description A review of a file (a rejection) and when it was made. */
        Review: {
            customRejection: string | null;
            rejects: components["schemas"]["RejectReason"][];
            reviewDate: components["schemas"]["UtcDateTime"];
        };
        JobFile: {
            id: components["schemas"]["Id"];
            fileName: string;
            tags: string[];
            /** @description The customer's instruction to the editor. */
            remarkToProcessor: string;
            acceptedByUser: boolean;
            isRejected: boolean;
            isReviewed: boolean;
            rejectionReason: string | null;
            reviewDate: components["schemas"]["NullableDateTime"];
            /** @description The current review, or `null` when the file was never rejected. */
            reviews: components["schemas"]["Review"] | null;
            /** @description Earlier reviews, oldest first (the 5 most recent). */
            previousReviews: components["schemas"]["Review"][];
            /** @description The customer's picture; `null` until its first upload arrived. */
            original: components["schemas"]["ReadyPicture"] | components["schemas"]["InvalidPicture"] | null;
            /** @description Staff's edited version; `null` until its first upload arrived. */
            edited: components["schemas"]["ReadyPicture"] | components["schemas"]["InvalidPicture"] | null;
        };
        /**
         * @description A picture checked and rendered: its type (decided by its bytes), size, dimensions as displayed, SHA-256,
         *     when it was uploaded, and presigned GET URLs of its thumbnail (longest side 320 px) and preview (2,048 px),
         *     both WebP, and of the picture itself as a download named by the file's `fileName`. The URLs are valid
         *     15 minutes from the answer; read the files again for new ones.
         */
        ReadyPicture: {
            /** @constant */
            status: "ready";
            /** @enum {string} */
            contentType: "image/jpeg" | "image/png" | "image/tiff" | "image/webp" | "image/avif";
            /**
             * Format: int64
             * @description Bytes.
             */
            size: number;
            /** Format: int32 */
            width: number;
            /** Format: int32 */
            height: number;
            /** @description The SHA-256 of the bytes, base64. */
            sha256: string;
            uploadedDate: components["schemas"]["UtcDateTime"];
            /** Format: uri */
            thumbnailUrl: string;
            /** Format: uri */
            previewUrl: string;
            /** Format: uri */
            downloadUrl: string;
        };
        /** @description Bytes the service does not take (another type, corrupt, too large), and why. */
        InvalidPicture: {
            /** @constant */
            status: "invalid";
            reason: string;
            uploadedDate: components["schemas"]["UtcDateTime"];
        };
        JobFilesResponseBody: {
            /** @constant */
            _type: "JobFilesResponseBody";
            jobId: components["schemas"]["Id"];
            /** @description The files of the page, in id order. */
            files: components["schemas"]["JobFile"][];
            /** @description Continues the listing; `null` on the last page (a page short of `limit` may still have one). */
            nextCursor: string | null;
        };
        StatusEntry: {
            id: components["schemas"]["JobStatus"];
            description: string;
            /** @description The statuses the caller's role may set from this one with `PATCH /jobs/{id}`. */
            next: components["schemas"]["JobStatus"][];
        };
        StatusesResponseBody: {
            /** @constant */
            _type: "StatusesResponseBody";
            /** @description Every status, in lifecycle order. */
            statuses: components["schemas"]["StatusEntry"][];
        };
        /** @description The body of `POST /sessions` (JSON or form). */
        SessionRequest: {
            /** @description The application's id of the signed-in person. */
            userId: string;
            /** Format: int64 */
            accountId: number;
            /**
             * @default user
             * @enum {string}
             */
            role?: "user" | "operator";
            /**
             * Format: int32
             * @description Lifetime in seconds; see the operation for the caps.
             */
            ttlSeconds?: number;
        };
        SessionResponseBody: {
            /** @constant */
            _type: "SessionResponseBody";
            sessionId: string;
            /** @description The session token (`X-Session-Token`); shown only here. */
            token: string;
            expiresAt: components["schemas"]["UtcDateTime"];
        };
        SessionEndedResponseBody: {
            /** @constant */
            _type: "SessionEndedResponseBody";
            sessionId: string;
        };
        /**
         * @description Every error code the API answers with.
         * @enum {string}
         */
        ErrorCode: "not_found" | "method_not_allowed" | "not_acceptable" | "request_timeout" | "length_required" | "payload_too_large" | "unsupported_media_type" | "missing_header" | "invalid_json" | "invalid_parameter" | "invalid_client" | "invalid_session" | "forbidden" | "file_not_found" | "file_not_rejectable" | "job_archived" | "job_not_found" | "file_not_acceptable" | "files_not_ready" | "job_not_editable" | "invalid_transition" | "file_not_deliverable" | "idempotency_key_reused" | "precondition_required" | "precondition_failed" | "webhook_not_found" | "webhook_limit_reached" | "internal_error" | "service_unavailable";
        /** @description A human-readable explanation; may name the offending value. Do not parse it — use `code`. */
        ErrorMessage: string;
        /** @description The id of the request, the same as the `X-Request-Id` header. */
        RequestId: string;
        NotFoundError: {
            /** @constant */
            code: "not_found";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        MethodNotAllowedError: {
            /** @constant */
            code: "method_not_allowed";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        NotAcceptableError: {
            /** @constant */
            code: "not_acceptable";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        RequestTimeoutError: {
            /** @constant */
            code: "request_timeout";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        LengthRequiredError: {
            /** @constant */
            code: "length_required";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        PayloadTooLargeError: {
            /** @constant */
            code: "payload_too_large";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        UnsupportedMediaTypeError: {
            /** @constant */
            code: "unsupported_media_type";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        MissingHeaderError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "missing_header";
            message: components["schemas"]["ErrorMessage"];
            /**
             * @description The header that is missing or blank (the client token is checked first; `X-Client-Secret` on `POST /sessions` only).
             * @enum {string}
             */
            headerName: "X-Client-Token" | "X-Session-Token" | "X-Client-Secret";
            requestId: components["schemas"]["RequestId"];
        };
        InvalidJsonError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "invalid_json";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        InvalidParameterError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "invalid_parameter";
            message: components["schemas"]["ErrorMessage"];
            /** @description The first offending field (`page`, `files[0].rejects[1].reason`, or `body` when the body is not an object). */
            parameter: string;
            requestId: components["schemas"]["RequestId"];
        };
        InvalidClientError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "invalid_client";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        InvalidSessionError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "invalid_session";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        ForbiddenError: {
            /** @constant */
            code: "forbidden";
            message: components["schemas"]["ErrorMessage"];
            /**
             * @description The grant the client lacks (`search`, `reject`, `jobs`, `sessions`, …), when the refusal is check 7;
             *     an operator adds it to the client. Absent when the client holds the grant and the refusal is about
             *     something else the message names (a field only operators may set, another account, a role the
             *     client may not open sessions for).
             * @example jobs
             */
            grant?: string;
            requestId: components["schemas"]["RequestId"];
        };
        FileNotFoundError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "file_not_found";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file of the request that does not exist for the caller.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        FileNotRejectableError: {
            /** @constant */
            code: "file_not_rejectable";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file of the request that cannot be rejected.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        FileNotAcceptableError: {
            /** @constant */
            code: "file_not_acceptable";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file of the request that cannot be accepted.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        JobArchivedError: {
            /** @constant */
            code: "job_archived";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file of the request whose job is archived.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        ArchivedJobError: {
            /** @constant */
            code: "job_archived";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        InternalError: {
            /** @constant */
            code: "internal_error";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        ServiceUnavailableError: {
            /** @constant */
            code: "service_unavailable";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        /**
         * @description An event type (see `asyncapi.yaml`).
         * @enum {string}
         */
        WebhookEventType: "job.created" | "job.updated" | "job.status_changed" | "job.files_delivered" | "file.rejected" | "file.accepted" | "file.image_ready" | "file.image_invalid";
        /** @description The body of `POST /webhooks` (JSON or form; a form lists `events` as repeated keys). */
        WebhookRequest: {
            /** @description The endpoint, `https`, reachable on a public address. */
            url: string;
            /** @description The event types to receive, each at most once (a type listed twice is `invalid_parameter`). */
            events: components["schemas"]["WebhookEventType"][];
        };
        Webhook: {
            id: string;
            url: string;
            events: components["schemas"]["WebhookEventType"][];
            /** @description `false` once the endpoint failed every attempt for 5 days; nothing is delivered to it then. */
            enabled: boolean;
            createdAt: components["schemas"]["UtcDateTime"];
            /** @description When it was disabled; `null` while enabled. */
            disabledAt: components["schemas"]["UtcDateTime"] | null;
        };
        WebhookCreatedResponseBody: {
            /** @constant */
            _type: "WebhookCreatedResponseBody";
            id: string;
            url: string;
            events: components["schemas"]["WebhookEventType"][];
            /** @description The Standard Webhooks signing secret; shown only here. */
            secret: string;
            enabled: boolean;
            createdAt: components["schemas"]["UtcDateTime"];
            disabledAt: null;
        };
        WebhooksResponseBody: {
            /** @constant */
            _type: "WebhooksResponseBody";
            webhooks: components["schemas"]["Webhook"][];
        };
        WebhookDeletedResponseBody: {
            /** @constant */
            _type: "WebhookDeletedResponseBody";
            id: string;
        };
        WebhookAttempt: {
            /** @description The event's id, also the `webhook-id` header of every attempt of it. */
            eventId: string;
            eventType: components["schemas"]["WebhookEventType"];
            /** Format: int32 */
            attempt: number;
            /** @enum {string} */
            status: "delivered" | "retrying" | "failed";
            /** @description The endpoint's answer; `null` when it gave none in time. */
            statusCode: number | null;
            /** @description Why the attempt failed; `null` when delivered. */
            error: string | null;
            at: components["schemas"]["UtcDateTime"];
            /** Format: int32 */
            durationMs: number;
            /** @description When the next attempt is due, while `retrying`; else `null`. */
            nextAttemptAt: components["schemas"]["UtcDateTime"] | null;
        };
        WebhookDeliveriesResponseBody: {
            /** @constant */
            _type: "WebhookDeliveriesResponseBody";
            webhookId: string;
            deliveries: components["schemas"]["WebhookAttempt"][];
        };
        WebhookNotFoundError: {
            /** @constant */
            code: "webhook_not_found";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        WebhookLimitReachedError: {
            /** @constant */
            code: "webhook_limit_reached";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        JobNotFoundError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "job_not_found";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        FilesNotReadyError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "files_not_ready";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file (by id) whose original picture is not ready.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        JobNotEditableError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "job_not_editable";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
        InvalidTransitionError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "invalid_transition";
            message: components["schemas"]["ErrorMessage"];
            /** @constant */
            parameter: "status";
            requestId: components["schemas"]["RequestId"];
        };
        FileNotDeliverableError: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            code: "file_not_deliverable";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The first file of the request the customer accepted, or whose edited picture is not ready.
             */
            fileId: number;
            requestId: components["schemas"]["RequestId"];
        };
        IdempotencyKeyReusedError: {
            /** @constant */
            code: "idempotency_key_reused";
            message: components["schemas"]["ErrorMessage"];
            /** @constant */
            headerName: "Idempotency-Key";
            requestId: components["schemas"]["RequestId"];
        };
        PreconditionFailedError: {
            /** @constant */
            code: "precondition_failed";
            message: components["schemas"]["ErrorMessage"];
            /**
             * Format: int64
             * @description The job's current version, the one the answer's `ETag` quotes; send `If-Match` with it (quoted) once the change is decided again on the current job.
             */
            currentVersion: number;
            requestId: components["schemas"]["RequestId"];
        };
        PreconditionRequiredError: {
            /** @constant */
            code: "precondition_required";
            message: components["schemas"]["ErrorMessage"];
            requestId: components["schemas"]["RequestId"];
        };
    };
    responses: {
        /** @description `not_found`: no such path. */
        NotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotFoundError"];
            };
        };
        /** @description `method_not_allowed`: the path exists but does not answer this method; `Allow` lists the ones it does. */
        MethodNotAllowed: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["MethodNotAllowedError"];
            };
        };
        /** @description `missing_header`: `X-Client-Token` or `X-Session-Token` is missing or blank. */
        MissingHeader: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["MissingHeaderError"];
            };
        };
        /**
         * @description `missing_header` (with `headerName`), `invalid_json` (the body does not parse) or
         *     `invalid_parameter` (with `parameter`, the first offending field; nested JSON fields are named
         *     with a path such as `files[2].rejects[1].reason`, a body that is not an object as `body`).
         */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["MissingHeaderError"] | components["schemas"]["InvalidJsonError"] | components["schemas"]["InvalidParameterError"];
            };
        };
        /** @description `invalid_client` (client token unknown or disabled) or `invalid_session` (session token unknown, expired or issued to another client). */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidClientError"] | components["schemas"]["InvalidSessionError"];
            };
        };
        /** @description `forbidden`: the client is not granted this operation (`grant` names the grant it lacks), or the caller may not do what the message names. */
        Forbidden: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ForbiddenError"];
            };
        };
        /** @description `file_not_found`: `fileId` names a file that does not exist or belongs to another account. */
        FileNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FileNotFoundError"];
            };
        };
        /** @description `not_acceptable`: `Accept` does not explicitly accept `application/json`. */
        NotAcceptable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["NotAcceptableError"];
            };
        };
        /** @description `request_timeout`: the request did not arrive in time (local server). */
        RequestTimeout: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["RequestTimeoutError"];
            };
        };
        /** @description `file_not_rejectable`: the file's job is not in review, the customer already accepted the file, the file was never delivered (created through the API and named by no delivery yet), storing another review would outgrow the file's or the request's size budget, or the file id names more than one file the caller may change (file ids are unique only within a job). */
        FileNotRejectable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FileNotRejectableError"];
            };
        };
        /** @description `file_not_acceptable`: the file's job is not in review, or the file was never delivered (created through the API and named by no delivery yet), or the file id names more than one file the caller may change (file ids are unique only within a job), or the items the request's transaction would touch add up past its size budget (the file named is the first, in request order, that crosses it; accept fewer files per request). */
        FileNotAcceptable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["FileNotAcceptableError"];
            };
        };
        /** @description `job_archived`: the file's job is archived. */
        JobArchived: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["JobArchivedError"];
            };
        };
        /** @description `length_required`: a POST with neither `Content-Length` nor chunked encoding (local server). */
        LengthRequired: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["LengthRequiredError"];
            };
        };
        /** @description `payload_too_large`: the body is larger than 1 MiB. */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["PayloadTooLargeError"];
            };
        };
        /** @description `unsupported_media_type`: `Content-Type` is missing or neither `application/json` nor `application/x-www-form-urlencoded`. */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["UnsupportedMediaTypeError"];
            };
        };
        /** @description `internal_error`: an unexpected condition. The body never carries a stack trace or an internal name. */
        InternalError: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InternalError"];
            };
        };
        /** @description `service_unavailable`: DynamoDB or the search engine is down, throttled past its retries or timed out. Retry after `Retry-After` seconds. */
        ServiceUnavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ServiceUnavailableError"];
            };
        };
        /** @description `webhook_not_found`: no such webhook of the calling client (another client's is answered the same). */
        WebhookNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WebhookNotFoundError"];
            };
        };
        /** @description `webhook_limit_reached`: the client has 10 webhooks already; remove one first. */
        WebhookLimitReached: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["WebhookLimitReachedError"];
            };
        };
        /** @description `job_not_found`: no such job, or another account's. */
        JobNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["JobNotFoundError"];
            };
        };
        /** @description `job_not_found` (no such job, or another account's) or `file_not_found` (a listed file is not the job's). */
        JobOrFileNotFound: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["JobNotFoundError"] | components["schemas"]["FileNotFoundError"];
            };
        };
        /** @description `job_not_editable` (a user edits fields only while the job is `CJ_NEW` or `CJ_REQUEST_OFFER`), `invalid_transition` (the status cannot move there from the current one for the caller's role) or `files_not_ready` (a user asks for an offer while a file's original picture is not ready; `fileId` names the first such file by id). */
        JobNotChangeable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["JobNotEditableError"] | components["schemas"]["InvalidTransitionError"] | components["schemas"]["FilesNotReadyError"];
            };
        };
        /** @description `invalid_transition` (the job's status allows no delivery) or `file_not_deliverable` (the customer accepted the file, or its edited picture is not ready). */
        NotDeliverable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["InvalidTransitionError"] | components["schemas"]["FileNotDeliverableError"];
            };
        };
        /** @description `job_not_editable` (an original is uploaded only while the job is `CJ_NEW` or `CJ_REQUEST_OFFER`) or `invalid_transition` (an edited version only while it is `CJ_WORK_PROGRESS`, `CJ_REJECT_READY` or `CJ_REJECT_ERROR`). */
        UploadNotAllowed: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["JobNotEditableError"] | components["schemas"]["InvalidTransitionError"];
            };
        };
        /** @description `idempotency_key_reused`: the key was used within 24 hours, by this client for this account, for another request (another body). */
        IdempotencyKeyReused: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["IdempotencyKeyReusedError"];
            };
        };
        /** @description `job_archived`: the job is `CJ_ARCHIVED`, which is terminal; nothing was changed. */
        ArchivedJobUnchangeable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ArchivedJobError"];
            };
        };
        /** @description `precondition_failed`: the job changed since the version in `If-Match`; `ETag` and the body's `currentVersion` give its current one. Nothing was changed. */
        PreconditionFailed: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                ETag: components["headers"]["ETag"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["PreconditionFailedError"];
            };
        };
        /** @description `precondition_required`: the request carries no `If-Match`, or `If-Match: *`, which names no version. */
        PreconditionRequired: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Cache-Control": components["headers"]["Cache-Control"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["PreconditionRequiredError"];
            };
        };
    };
    parameters: {
        /** @description A webhook's id, as `POST /webhooks` answered it (`wh_…`). */
        WebhookId: string;
        /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
        JobIdPath: number;
        /** @description The file's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `fileId`. */
        FileIdPath: number;
        /**
         * @description 1–255 visible ASCII characters (else `400 invalid_parameter` naming `Idempotency-Key`), chosen by the
         *     client per create (a UUID). Remembered for 24 hours per client and account (the account the job is
         *     created in): every session of the client in that account gets the first answer again, and a session
         *     of another account never meets the key.
         */
        IdempotencyKey: string;
        /**
         * @description The job's `ETag` as last read, quoted (`"<version>"`; a list of them is allowed). Required: `428`
         *     without it or with `*`; `400 invalid_parameter` naming `If-Match` for anything but strong, quoted
         *     entity-tags (an unquoted version, a weak `W/"…"` tag).
         */
        IfMatch: string;
        /** @description An `ETag` the caller holds; when it is the job's current one the answer is `304` with no body. */
        IfNoneMatch: string;
    };
    requestBodies: never;
    headers: {
        /** @description The id of this request; error bodies repeat it as `requestId`. Quote it when reporting a problem. */
        "X-Request-Id": string;
        /** @description Answers are never cached. */
        "Cache-Control": "no-store";
        /** @description The methods the path answers. */
        Allow: string;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /**
         * @description The challenge of a `401` (RFC 9110 requires one): this API's own scheme, naming the headers the
         *     credentials travel in — `ClientSession` (a client token and a session token; every endpoint but
         *     `POST /sessions`) or `ClientSecret` (a client token and a client secret; `POST /sessions`). Behind
         *     API Gateway (REST) a function's `WWW-Authenticate` reaches the client renamed
         *     `x-amzn-Remapped-WWW-Authenticate`.
         */
        "WWW-Authenticate": string;
        /**
         * @description The path of the created job as the caller reaches it, built from the request's own path: behind API
         *     Gateway's endpoint the stage comes first (`/prod/jobs/{id}`), behind a custom domain its base path
         *     (`/v1/jobs/{id}`, or `/jobs/{id}` at the root), locally `/jobs/{id}`. Resolve it against the
         *     request's URL.
         */
        Location: string;
        /** @description The job's version, quoted (`"<version>"`); send it as `If-Match` to change the job. */
        ETag: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listSearchFields: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The fields of the caller's role. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchFieldsResponseBody"];
                };
            };
            400: components["responses"]["MissingHeader"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    searchJobs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description All fields are optional; an empty body searches everything the caller may see. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description One page of matching jobs and the total count of matches. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rejectFiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RejectRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["RejectForm"];
            };
        };
        responses: {
            /** @description Every listed file is rejected. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RejectResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["FileNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["FileNotRejectable"];
            410: components["responses"]["JobArchived"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createJob: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description 1–255 visible ASCII characters (else `400 invalid_parameter` naming `Idempotency-Key`), chosen by the
                 *     client per create (a UUID). Remembered for 24 hours per client and account (the account the job is
                 *     created in): every session of the client in that account gets the first answer again, and a session
                 *     of another account never meets the key.
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateJobRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["CreateJobForm"];
            };
        };
        responses: {
            /** @description The job was created (or, with an `Idempotency-Key` seen before, this is the first answer again). */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    Location: components["headers"]["Location"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobCreatedResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["IdempotencyKeyReused"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description An `ETag` the caller holds; when it is the job's current one the answer is `304` with no body. */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
                id: components["parameters"]["JobIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The job. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobResponseBody"];
                };
            };
            /** @description The job has not changed since the version `If-None-Match` names; no body. */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateJob: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The job's `ETag` as last read, quoted (`"<version>"`; a list of them is allowed). Required: `428`
                 *     without it or with `*`; `400 invalid_parameter` naming `If-Match` for anything but strong, quoted
                 *     entity-tags (an unquoted version, a weak `W/"…"` tag).
                 */
                "If-Match": components["parameters"]["IfMatch"];
            };
            path: {
                /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
                id: components["parameters"]["JobIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JobUpdateRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["JobUpdateRequest"];
            };
        };
        responses: {
            /** @description The job after the change. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["JobNotChangeable"];
            410: components["responses"]["ArchivedJobUnchangeable"];
            411: components["responses"]["LengthRequired"];
            412: components["responses"]["PreconditionFailed"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            428: components["responses"]["PreconditionRequired"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listJobFiles: {
        parameters: {
            query?: {
                /** @description Only the files in this review state; all files when absent. */
                review?: "pending" | "rejected" | "accepted";
                /** @description The most files a page holds (a page of large files may hold fewer). */
                limit?: number;
                /** @description The `nextCursor` of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
                id: components["parameters"]["JobIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of files. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobFilesResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listStatuses: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The status catalogue for the caller's role. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StatusesResponseBody"];
                };
            };
            400: components["responses"]["MissingHeader"];
            401: components["responses"]["Unauthorized"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deliverFiles: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
                id: components["parameters"]["JobIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["DeliveryRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["DeliveryForm"];
            };
        };
        responses: {
            /** @description The job after the delivery. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    ETag: components["headers"]["ETag"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobOrFileNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["NotDeliverable"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    requestUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The job's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `id`. */
                id: components["parameters"]["JobIdPath"];
                /** @description The file's id (1 to 2^53 − 1); anything else is `400 invalid_parameter` naming `fileId`. */
                fileId: components["parameters"]["FileIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["UploadRequest"];
            };
        };
        responses: {
            /** @description A fresh upload target. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadTargetResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["JobOrFileNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["UploadNotAllowed"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    acceptFiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AcceptRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["AcceptForm"];
            };
        };
        responses: {
            /** @description Every listed file is accepted. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["FileNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["FileNotAcceptable"];
            410: components["responses"]["JobArchived"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    openSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["SessionRequest"];
            };
        };
        responses: {
            /** @description The session is open; its token is shown only here. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    endSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is ended. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionEndedResponseBody"];
                };
            };
            400: components["responses"]["MissingHeader"];
            401: components["responses"]["Unauthorized"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client's webhooks. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhooksResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    registerWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["WebhookRequest"];
            };
        };
        responses: {
            /** @description The webhook is registered; its signing secret is shown only here. */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreatedResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            409: components["responses"]["WebhookLimitReached"];
            411: components["responses"]["LengthRequired"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A webhook's id, as `POST /webhooks` answered it (`wh_…`). */
                webhookId: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook is removed. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeletedResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A webhook's id, as `POST /webhooks` answered it (`wh_…`). */
                webhookId: components["parameters"]["WebhookId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recent attempts. */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveriesResponseBody"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["WebhookNotFound"];
            406: components["responses"]["NotAcceptable"];
            408: components["responses"]["RequestTimeout"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
}
