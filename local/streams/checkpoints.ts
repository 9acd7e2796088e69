/**
 * The stream poller's checkpoints: per shard, the last settled record, whether the shard is finished, and
 * which trim was already reported. Kept in memory and, when the poller is given a path, mirrored to a JSON
 * file written atomically, so a restart resumes where the last run stopped.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface ShardCheckpoint {
  /** The last settled record's sequence number. */
  sequenceNumber?: string;
  /** The shard is closed and every record of it settled. */
  finished?: boolean;
  /** Records after this sequence number ('' for the shard's start) were reported trimmed. */
  trimReportedAfter?: string;
}

interface CheckpointFile {
  streamArn: string;
  shards: Record<string, ShardCheckpoint>;
}

/** Shard checkpoints of one stream, optionally mirrored to a JSON file (written atomically). */
export class CheckpointStore {
  private readonly path: string | undefined;
  private readonly streamArn: string;
  private readonly shards: Record<string, ShardCheckpoint>;

  public constructor(path: string | undefined, streamArn: string) {
    this.path = path;
    this.streamArn = streamArn;
    this.shards = CheckpointStore.load(path, streamArn);
  }

  private static load(path: string | undefined, streamArn: string): Record<string, ShardCheckpoint> {
    if (path === undefined) return {};
    try {
      const saved = JSON.parse(readFileSync(path, 'utf8')) as Partial<CheckpointFile>;
      return saved.streamArn === streamArn && typeof saved.shards === 'object' && saved.shards !== null
        ? { ...saved.shards }
        : {};
    } catch {
      return {};
    }
  }

  public get(shardId: string): ShardCheckpoint {
    return this.shards[shardId] ?? {};
  }

  public set(shardId: string, checkpoint: ShardCheckpoint): void {
    this.shards[shardId] = checkpoint;
    this.save();
  }

  /**
   * Forgets shards the stream no longer lists (trimmed), and returns those among them that had not been
   * read to their end.
   */
  public retain(shardIds: ReadonlySet<string>): string[] {
    const unfinished: string[] = [];
    let changed = false;
    for (const [shardId, checkpoint] of Object.entries(this.shards)) {
      if (!shardIds.has(shardId)) {
        if (checkpoint.finished !== true) unfinished.push(shardId);
        delete this.shards[shardId];
        changed = true;
      }
    }
    if (changed) this.save();
    return unfinished;
  }

  private save(): void {
    if (this.path === undefined) return;
    const file: CheckpointFile = { streamArn: this.streamArn, shards: this.shards };
    mkdirSync(dirname(this.path), { recursive: true });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(file));
    renameSync(temporary, this.path);
  }
}
