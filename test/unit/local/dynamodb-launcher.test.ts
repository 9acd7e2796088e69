/**
 * The DynamoDB Local launcher class: a well-formed class file naming exactly the members it calls, and the
 * bind report it prints read back. (test/unit/local/dynamodb-jar.test.ts puts it into the jar Java runs.)
 * (test/reliability/dynamodb-local-loopback.test.ts runs it under Java.)
 */
import { describe, expect, it } from 'vitest';
import { BOUND_PREFIX, boundAddressIn, LAUNCHER_CLASS, launcherClassBytes } from '../../../local/dynamodb/launcher';

describe('DynamoDB Local launcher', () => {
  it('is a Java 8 class file whose constant pool names the calls that bind the connector', () => {
    const bytes = launcherClassBytes();
    expect(bytes.readUInt32BE(0)).toBe(0xcafebabe);
    expect(bytes.readUInt16BE(6)).toBe(52);
    const text = bytes.toString('latin1');
    for (const name of [
      LAUNCHER_CLASS,
      'createServerFromCommandLineArgs',
      'software/amazon/dynamodb/services/local/server/DynamoDBProxyServer',
      'org/eclipse/jetty/server/ServerConnector',
      'setHost',
      'getLocalPort',
      BOUND_PREFIX,
    ]) {
      expect(text).toContain(name);
    }
    expect(launcherClassBytes().equals(bytes)).toBe(true);
  });

  it('reads the bound address from DynamoDB Local output', () => {
    const output = `Initializing DynamoDB Local with the following configuration:\nPort:\t8000\n\n${BOUND_PREFIX}127.0.0.1:8000\r\n`;
    expect(boundAddressIn(output)).toBe('127.0.0.1:8000');
    expect(boundAddressIn('Port:\t8000\n')).toBeUndefined();
    expect(boundAddressIn(`${BOUND_PREFIX}127.0.0.1:-1\n`)).toBe('127.0.0.1:-1');
  });
});
