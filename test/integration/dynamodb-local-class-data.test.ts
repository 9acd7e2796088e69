/**
 * DynamoDB Local's JVM maps an archive of its classes once one exists (local/dynamodb/class-data.ts): a
 * DynamoDB Local that exits on request leaves one behind, or found one already, and the next start maps it into
 * memory (read from `/proc/<pid>/maps`) and serves requests as before, printing nothing about it.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { startDynamoDbLocal } from '../../local/dynamodb/dynamodb-local';

/** The files of DynamoDB Local's class archives a process has mapped. */
const mappedArchives = (pid: number): string[] => [
  ...new Set(
    readFileSync(`/proc/${pid}/maps`, 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/).slice(5).join(' '))
      .filter((file) => /\/jobs-api-dynamodb-local\/[0-9a-f]{16}\/classes-[0-9a-f]{16}\.jsa$/.test(file)),
  ),
];

describe("DynamoDB Local's class archive", () => {
  it('is mapped by a start after one that exited on request, which serves and prints nothing about it', async () => {
    const first = await startDynamoDbLocal({ port: 0 });
    await first.stop();
    expect((await first.exited).output).not.toMatch(/cds|archive/i);

    const second = await startDynamoDbLocal({ port: 0 });
    try {
      expect(mappedArchives(second.pid)).toHaveLength(1);
      const client = new DynamoDBClient({
        endpoint: second.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      expect((await client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
      client.destroy();
    } finally {
      await second.stop();
    }
    expect((await second.exited).output).not.toMatch(/cds|archive/i);
  }, 60_000);
});
