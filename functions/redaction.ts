/**
 * What the logs and the audit records never print: a token, a secret or a hash, whatever its key is named.
 * A value is hidden for what it is, never for how it looks, so an id of any legal shape (a `userId` of 43
 * base64url characters, or of 64 hex digits) stays readable:
 *
 * - a value under a key that names a credential or its hash ({@link isSecretKey});
 * - a client secret, which carries the `jsk_` prefix so that it can be recognised wherever it stands, and a
 *   webhook signing secret, which carries Standard Webhooks' `whsec_`;
 * - an auth-table key: `CLIENT#`, `SECRET#` or `SESSION#` and the hash of a credential;
 * - a credential this process has handled: every token and secret it generated or hashed, and every hash it
 *   made of one ({@link rememberCredential}, called by `functions/auth/tokens.ts`), and every value a log
 *   item carries under a credential's key (the token headers of a logged event), so the same token is hidden
 *   in the body or a message of that item too.
 */

/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

const SECRET_NAMES = new Set(['authorization', 'cookie']);

/** Endings of a key that names a credential or what it is stored as. */
const SECRET_ENDINGS = ['token', 'secret', 'hash'];

/**
 * Whether a log key names a credential whose value must never be printed: any key ending in `token`,
 * `secret` or `hash` once case, `-` and `_` are ignored (`X-Client-Token`, `x-session-token`,
 * `X-Client-Secret`, `clientToken`, `secret`, `tokenHash`), and `Authorization` / `Cookie`. Ids
 * (`secretId`, `sessionId`, `userId`) stay printable.
 */
export const isSecretKey = (key: string): boolean => {
  const folded = key.toLowerCase().replace(/[-_]/g, '');
  return SECRET_ENDINGS.some((ending) => folded.endsWith(ending)) || SECRET_NAMES.has(folded);
};

/**
 * How many credentials the process keeps in mind. Each request hashes the tokens it presents again, which
 * makes them the most recent; older ones are forgotten first.
 */
export const REMEMBERED_CREDENTIALS = 10_000;

/** The shortest value taken for a credential: nothing shorter than 128 bits of base64url is one. */
const SHORTEST_CREDENTIAL = 22;

/** The credentials this process has handled, oldest first, and the lengths among them. */
const remembered = new Set<string>();
const lengths = new Map<number, number>();

/**
 * Keeps a credential in mind (a token or a secret generated or presented, or the hash of one), so that the
 * logs hide it wherever it stands. Values too short to be a credential are ignored.
 */
export const rememberCredential = (value: string): void => {
  if (value.length < SHORTEST_CREDENTIAL) return;
  if (remembered.delete(value)) {
    remembered.add(value);
    return;
  }
  remembered.add(value);
  lengths.set(value.length, (lengths.get(value.length) ?? 0) + 1);
  if (remembered.size <= REMEMBERED_CREDENTIALS) return;
  const [oldest] = remembered;
  if (oldest === undefined) return;
  remembered.delete(oldest);
  const left = (lengths.get(oldest.length) ?? 1) - 1;
  if (left === 0) lengths.delete(oldest.length);
  else lengths.set(oldest.length, left);
};

/**
 * A client secret anywhere (`jsk_` and what follows), a webhook signing secret (`whsec_` and its base64), or an
 * auth-table key: a kind prefix and a hash that is
 * not followed by more of a key (`SESSION#<userId>#<sessionId>`, a `byClient` entry, names a user, not a hash).
 */
const KNOWN_FORMS =
  /jsk_[A-Za-z0-9_-]+|whsec_[A-Za-z0-9+/=]+|(?:CLIENT|SECRET|SESSION)#[0-9a-fA-F]+(?![A-Za-z0-9_.@:#-])/g;

/** A run of the characters tokens, secrets and hashes are written in. */
const RUN = /[A-Za-z0-9_-]+/g;

/** A run with every credential the process remembers inside it replaced. */
const redactRun = (run: string): string => {
  if (run.length < SHORTEST_CREDENTIAL) return run;
  if (remembered.has(run)) return REDACTED;
  let result = '';
  let copied = 0;
  for (let start = 0; start < run.length; start += 1) {
    for (const length of lengths.keys()) {
      if (start + length > run.length) continue;
      if (!remembered.has(run.slice(start, start + length))) continue;
      result += `${run.slice(copied, start)}${REDACTED}`;
      copied = start + length;
      start = copied - 1;
      break;
    }
  }
  return copied === 0 ? run : `${result}${run.slice(copied)}`;
};

/** A string with every secret, auth-table key and remembered credential in it replaced with `[REDACTED]`. */
export const redactValue = (text: string): string => {
  const known = text.replace(KNOWN_FORMS, REDACTED);
  return remembered.size === 0 ? known : known.replace(RUN, redactRun);
};

/** The deepest a log item is searched for values under a credential's key. */
const DEEPEST = 8;

/** Remembers every string a log item holds under a credential's key (a logged event's token headers). */
const rememberUnderSecretKeys = (value: unknown, depth = 0, seen = new WeakSet<object>()): void => {
  if (typeof value !== 'object' || value === null || depth > DEEPEST || seen.has(value)) return;
  seen.add(value);
  for (const [key, entry] of Object.entries(value)) {
    if (isSecretKey(key)) {
      for (const text of Array.isArray(entry) ? entry : [entry]) {
        if (typeof text === 'string') rememberCredential(text.trim());
      }
    } else rememberUnderSecretKeys(entry, depth + 1, seen);
  }
};

/**
 * JSON replacer that hides credentials, by key and by what the value is; headers objects keep their other
 * entries. Given the whole item first (JSON.stringify's root call), it learns the values under a credential's
 * key before it meets the rest of the item.
 */
export const redactSecrets = (key: string, value: unknown): unknown => {
  if (value === undefined || value === null) return value;
  if (key === '') rememberUnderSecretKeys(value);
  else if (isSecretKey(key)) return REDACTED;
  return typeof value === 'string' ? redactValue(value) : value;
};
