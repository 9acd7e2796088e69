/**
 * Client and session tokens and client secrets: 256 random bits, URL-safe; only their SHA-256 hashes are
 * ever stored. Every token and secret made or hashed here, and every hash made, is remembered as a
 * credential, so the logs hide it wherever it stands (`functions/redaction.ts`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { rememberCredential } from '../redaction';

/** Random bytes in a token (256 bits, above the contract's 128-bit minimum). */
export const TOKEN_BYTES = 32;

/** A new random token: 32 bytes as unpadded base64url (43 characters of `A–Z a–z 0–9 - _`). */
export const generateToken = (): string => {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  rememberCredential(token);
  return token;
};

/** The SHA-256 of a token, as 64 lower-case hex digits: the only form in which tokens are stored. */
export const hashToken = (token: string): string => {
  const hash = createHash('sha256').update(token, 'utf8').digest('hex');
  rememberCredential(token);
  rememberCredential(hash);
  return hash;
};

/** The prefix of every client secret, so secret scanners recognise a leaked one. */
export const SECRET_PREFIX = 'jsk_';

/** A new client secret: `jsk_` and 32 random bytes as unpadded base64url (256 bits). */
export const generateSecret = (): string => {
  const secret = `${SECRET_PREFIX}${randomBytes(TOKEN_BYTES).toString('base64url')}`;
  rememberCredential(secret);
  return secret;
};
