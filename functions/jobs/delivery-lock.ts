/**
 * The hold a large delivery (`deliver-files.ts`) keeps on its job while it writes the job's files in
 * several transactions: the job item carries `deliveryLock` (the delivery's token) until
 * `deliveryLockUntil` (epoch milliseconds). Every other writer of the job or its review state — an edit,
 * a rejection, an acceptance, another delivery — conditions its write on {@link unlockedCondition}, so
 * none lands between a delivery's first file and its job item; a hold whose delivery died expires, and
 * the next delivery of the job takes it over and finishes the work.
 */

/** The job item attributes of the hold. */
export const DELIVERY_LOCK = { token: 'deliveryLock', until: 'deliveryLockUntil' } as const;

/** How long a hold lasts: longer than a delivery of 1,000 files takes, short enough to be waited out. */
export const DELIVERY_LOCK_MS = 30_000;

/** A condition expression fragment with its placeholders. */
export interface ConditionFragment {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Holds while no delivery holds the job (none, or one whose hold expired before `now`, epoch ms). */
export const unlockedCondition = (now: number): ConditionFragment => ({
  expression: '(attribute_not_exists(#deliveryLock) OR #deliveryLockUntil < :deliveryLockNow)',
  names: { '#deliveryLock': DELIVERY_LOCK.token, '#deliveryLockUntil': DELIVERY_LOCK.until },
  values: { ':deliveryLockNow': now },
});
