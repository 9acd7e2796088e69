/**
 * The DynamoDB Local launcher class: a well-formed class file naming exactly the members it calls,
 * written where no other user can replace it, and the bind report it prints read back.
 * (test/reliability/dynamodb-local-loopback.test.ts runs it under Java.)
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOUND_PREFIX,
  boundAddressIn,
  LAUNCHER_CLASS,
  launcherClassBytes,
  writeLauncher,
} from '../../../local/dynamodb/launcher';

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

  it('is written to a private directory that remove() deletes', () => {
    const launcher = writeLauncher();
    const file = join(launcher.path, `${LAUNCHER_CLASS}.class`);
    expect(readFileSync(file).equals(launcherClassBytes())).toBe(true);
    if (process.platform !== 'win32') expect(statSync(launcher.path).mode & 0o077).toBe(0);
    launcher.remove();
    expect(existsSync(launcher.path)).toBe(false);
    launcher.remove();
  });

  it('reads the bound address from DynamoDB Local output', () => {
    const output = `Initializing DynamoDB Local with the following configuration:\nPort:\t8000\n\n${BOUND_PREFIX}127.0.0.1:8000\r\n`;
    expect(boundAddressIn(output)).toBe('127.0.0.1:8000');
    expect(boundAddressIn('Port:\t8000\n')).toBeUndefined();
    expect(boundAddressIn(`${BOUND_PREFIX}127.0.0.1:-1\n`)).toBe('127.0.0.1:-1');
  });
});
