/**
 * Client secrets as they are made: `jsk_` and 256 random bits, shown once, stored only as the SHA-256 in the
 * key of their item, and recorded on the client item (id, key and end), which is what says whether a secret
 * works (functions/auth/records.ts, `secretWorks`).
 */
import { randomUUID } from 'node:crypto';
import { authKeys, byClientEntries } from '../tables';
import type { SecretEntry } from './records';
import { generateSecret, hashToken } from './tokens';

export interface IssuedSecret {
  secretId: string;
  /** Shown once, stored only as its hash. */
  secret: string;
}

/** A new secret of a client: what to show once, its item, and what the client item keeps of it. */
export interface NewSecret extends IssuedSecret {
  key: string;
  item: Record<string, unknown>;
  entry: SecretEntry;
}

/** Makes a secret for a client (nothing written): 256 random bits, stored only as the hash in its key. */
export const newSecret = (clientId: string, now: Date): NewSecret => {
  const secret = generateSecret();
  const secretId = randomUUID();
  const key = authKeys.secret(hashToken(secret));
  const createdAt = now.toISOString();
  return {
    secretId,
    secret,
    key,
    item: { pk: key, type: 'secret', secretId, clientId, clientEntry: byClientEntries.secret(secretId), createdAt },
    entry: { key, createdAt },
  };
};
