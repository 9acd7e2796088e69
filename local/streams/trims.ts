/**
 * What the stream poller does when a read answers `TrimmedDataAccessException`: tell a harmless trim
 * (only renew the iterator) from one that lost records nobody read (report it once, naming the repair).
 * The poller's header explains why DynamoDB Local answers harmless trims at all.
 */
import type { CheckpointStore } from './checkpoints';
import { type Settings, trimmedMessage } from './poller-options';

/** Where a shard's reader stood when the trim was answered. */
export interface TrimmedRead {
  shardId: string;
  /** The last sequence number fetched from the shard, if any. */
  lastFetched: string | undefined;
  /** Whether the read used a `TRIM_HORIZON` iterator taken in the same round. */
  horizonJustTaken: boolean;
  /** When a read last found the shard read to its end (wall clock), if it is caught up. */
  caughtUpSince: number | undefined;
  /** When this read started (wall clock). */
  readAt: number;
}

/**
 * Logs a trim and remembers a reported one in the shard's checkpoint. Returns whether records were lost
 * (the reader is then no longer caught up).
 *
 * A trim is harmless when the shard was read to its end less than a retention period ago — every record
 * after that position is younger than the retention period, so none can be gone — or when the iterator
 * was a `TRIM_HORIZON` taken a moment ago (it pointed at the oldest record there was). A trim already
 * reported, before a restart too, is not reported again.
 */
export const handleTrim = (
  settings: Pick<Settings, 'logger' | 'repairCommand' | 'retentionMs'>,
  checkpoints: CheckpointStore,
  read: TrimmedRead,
): boolean => {
  const position = read.lastFetched ?? '';
  const reported = checkpoints.get(read.shardId).trimReportedAfter === position;
  const harmless =
    read.horizonJustTaken ||
    (read.caughtUpSince !== undefined && read.readAt - read.caughtUpSince < settings.retentionMs);
  if (harmless || reported) {
    settings.logger.info('Renewed a shard iterator that pointed at trimmed records', { shardId: read.shardId });
    return false;
  }
  settings.logger.error(trimmedMessage(settings.repairCommand, 'Stream records were trimmed'), {
    shardId: read.shardId,
    ...(read.lastFetched === undefined ? {} : { afterSequenceNumber: read.lastFetched }),
  });
  checkpoints.set(read.shardId, { ...checkpoints.get(read.shardId), trimReportedAfter: position });
  return true;
};
