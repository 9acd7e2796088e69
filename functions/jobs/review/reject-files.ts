/**
 * The reject use case (docs/contract.md §5): the shared review path of `review-files.ts` with the rules
 * of a rejection (`reject.ts`).
 */
import type { Principal } from '../../auth/principal';
import type { RejectRequest } from '../model/model';
import { planRejection, type RejectResponseBody } from './reject';
import { ReviewFiles, type ReviewFilesOptions } from './review-files';

export type RejectFilesOptions = ReviewFilesOptions;

/**
 * Rejects files: answers the response body, or throws `FileRejectionRefusedError` (nothing written) or
 * `RejectContentionError` (retries exhausted, nothing written).
 */
export class RejectFiles {
  private readonly files: ReviewFiles;

  public constructor(options: RejectFilesOptions) {
    this.files = new ReviewFiles(options);
  }

  /** Rejects the files of a validated request on behalf of a caller, all or nothing. */
  public run(request: RejectRequest, principal: Pick<Principal, 'role' | 'accountId'>): Promise<RejectResponseBody> {
    return this.files.review(
      request.files.map((file) => file.fileId),
      (stored, caller, now, ambiguous) => planRejection(request, stored, caller, now, ambiguous),
      principal,
    );
  }
}
