/**
 * DynamoDB Local keeps the stream records of all its tables in one SQLite table (`us`), keyed by sequence
 * number alone. Every write to a table with a stream, and every `DescribeStream`, asks SQLite for the first
 * record of that table's stream (`SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?`), which SQLite answers
 * by walking the records in sequence order until one of that stream turns up: past every record of the tables
 * written before it, and through all of them for a stream with no record yet. Records stay 24 hours, after
 * their table is deleted too, so each write costs more than the one before: 2,000 puts into a fresh table, after
 * 16,000 records of tables written and deleted before it, took DynamoDB Local 123 CPU-seconds with its database
 * in a file (7.6 in memory, 1.3 with no record before). An index on the stream id and sequence number answers
 * the lookup directly: the same 2,000 puts cost 1.2–1.3 CPU-seconds however many records came before.
 *
 * The index is one more entry in DynamoDB Local's database file, next to its own: it changes no answer
 * (SQLite chooses an index only to find the same rows sooner), and the file stays DynamoDB Local's to open.
 * Its name holds a `*`, which no DynamoDB table name may, and begins with `us`, shorter than any table
 * name: DynamoDB Local names its own indexes `<table>*<index>`, so the name can meet none of them. An
 * instance kept in memory (`-inMemory`) has no file another process could open, and stays without it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The file DynamoDB Local keeps its tables in, with `-sharedDb`, under its `-dbPath`. */
export const DATABASE_FILE = 'shared-local-instance.db';

/** The index added to DynamoDB Local's stream records. */
export const STREAM_RECORDS_INDEX = 'us*StreamID';

/**
 * Asks DynamoDB Local for its table list: it creates its database file and tables on the first request it
 * serves, not at start-up.
 */
const listTables = async (endpoint: string): Promise<void> => {
  const answer = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.0',
      'X-Amz-Target': 'DynamoDB_20120810.ListTables',
      // DynamoDB Local checks only that a request is signed, not the signature.
      Authorization:
        'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
    },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  if (!answer.ok) throw new Error(`DynamoDB Local answered ListTables with ${answer.status}: ${await answer.text()}`);
};

/**
 * Adds the index on DynamoDB Local's stream records to the database under `dataDir` (once: it stays in the
 * file), with DynamoDB Local running on `endpoint`. Throws, naming the file, when the file does not hold the
 * stream records table this release of DynamoDB Local keeps: a release that stores them otherwise needs this
 * looked at again, not a local stack that slows down with every write.
 */
export const indexStreamRecords = async (endpoint: string, dataDir: string): Promise<void> => {
  await listTables(endpoint);
  const file = join(dataDir, DATABASE_FILE);
  if (!existsSync(file)) throw new Error(`DynamoDB Local made no database file at ${file}`);
  // DynamoDB Local's own connection is idle here; the timeout covers a moment's lock all the same.
  const database = new DatabaseSync(file, { timeout: 10_000 });
  try {
    const columns = (database.prepare('PRAGMA table_info(us)').all() as { name: string }[]).map(
      (column) => column.name,
    );
    if (!columns.includes('StreamID') || !columns.includes('SequenceNumber')) {
      throw new Error(
        `${file} has no stream records table (us) with StreamID and SequenceNumber columns: this release of ` +
          'DynamoDB Local keeps its stream records otherwise, and local/dynamodb/stream-records-index.ts needs updating',
      );
    }
    database.exec(`CREATE INDEX IF NOT EXISTS "${STREAM_RECORDS_INDEX}" ON us (StreamID, SequenceNumber)`);
  } finally {
    database.close();
  }
};
