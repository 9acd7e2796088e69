/**
 * The local stack's cursor signing key (what the deployed stack keeps in Secrets Manager): kept in the data
 * directory (`cursor-key`, readable by its owner only) so cursors stay valid across restarts and for
 * `npm run invoke`; a fresh random key per process when the data directory is in memory.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { MIN_CURSOR_KEY_LENGTH } from '../../functions/config';
import type { DataPaths } from '../paths';

const freshKey = (): string => randomBytes(48).toString('base64url');

/** The key of a data directory, created on first use; `undefined` file means in memory. */
export const localCursorKey = async (paths: Pick<DataPaths, 'cursorKey'>): Promise<string> => {
  if (paths.cursorKey === undefined) return freshKey();
  try {
    const kept = (await readFile(paths.cursorKey, 'utf8')).trim();
    if (kept.length >= MIN_CURSOR_KEY_LENGTH) return kept;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = freshKey();
  await mkdir(dirname(paths.cursorKey), { recursive: true });
  await writeFile(paths.cursorKey, `${key}\n`, { mode: 0o600 });
  return key;
};
