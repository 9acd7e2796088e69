/**
 * Client and session tokens and client secrets: 256 random bits, URL-safe; only their SHA-256 hashes are
 * ever stored.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Random bytes in a token (256 bits, above the contract's 128-bit minimum). */
export const TOKEN_BYTES = 32;

/** A new random token: 32 bytes as unpadded base64url (43 characters of `A–Z a–z 0–9 - _`). */
export const generateToken = (): string => randomBytes(TOKEN_BYTES).toString('base64url');

/** The SHA-256 of a token, as 64 lower-case hex digits: the only form in which tokens are stored. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** The prefix of every client secret, so secret scanners recognise a leaked one. */
export const SECRET_PREFIX = 'jsk_';

/** A new client secret: `jsk_` and 32 random bytes as unpadded base64url (256 bits). */
export const generateSecret = (): string => `${SECRET_PREFIX}${randomBytes(TOKEN_BYTES).toString('base64url')}`;
