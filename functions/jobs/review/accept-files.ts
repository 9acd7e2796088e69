/**
 * The accept use case (docs/contract.md §6a): the shared review path of `review-files.ts` with the rules
 * of an acceptance (`accept.ts`).
 */
import type { Principal } from '../../auth/principal';
import { type AcceptRequest, type AcceptResponseBody, planAcceptance } from './accept';
import { ReviewFiles, type ReviewFilesOptions } from './review-files';

/**
 * Accepts files: answers the response body, or throws `FileAcceptanceRefusedError` (nothing written) or
 * `RejectContentionError` (retries exhausted, nothing written).
 */
export class AcceptFiles {
  private readonly files: ReviewFiles;

  public constructor(options: ReviewFilesOptions) {
    this.files = new ReviewFiles(options);
  }

  /** Accepts the files of a validated request on behalf of a caller, all or nothing. */
  public run(request: AcceptRequest, principal: Pick<Principal, 'role' | 'accountId'>): Promise<AcceptResponseBody> {
    return this.files.review(
      request.fileIds,
      (stored, caller, now, ambiguous) => planAcceptance(request, stored, caller, now, ambiguous),
      principal,
    );
  }
}
