/**
 * The key that signs `GET /jobs/{id}/files` cursors. In AWS it is a Secrets Manager secret the stack
 * creates (random, never in the template or the environment), read through Powertools Parameters and
 * cached in the container for {@link CURSOR_KEY_MAX_AGE_SECONDS}; the local stack hands it over in the
 * environment from its data directory. A secret that cannot be read is `503`, like any dependency.
 */
import { getSecret } from '@aws-lambda-powertools/parameters/secrets';
import { config, ConfigError, MIN_CURSOR_KEY_LENGTH } from '../config';
import { DependencyUnavailableError } from '../errors';

/** How long a container keeps the key it read, in seconds. */
export const CURSOR_KEY_MAX_AGE_SECONDS = 900;

/** The dependency a failed read is reported as. */
export const SECRETS_MANAGER = 'secretsmanager';

/** The cursor signing key of this stack. */
export const cursorKey = async (): Promise<string> => {
  const source = config().cursorKey;
  if (source === undefined) {
    throw new ConfigError('CURSOR_SIGNING_KEY or CURSOR_KEY_SECRET_ARN is required to page files');
  }
  if ('text' in source) return source.text;
  let value: unknown;
  try {
    value = await getSecret(source.secretArn, { maxAge: CURSOR_KEY_MAX_AGE_SECONDS });
  } catch (error) {
    throw new DependencyUnavailableError(SECRETS_MANAGER, error);
  }
  if (typeof value !== 'string' || value.length < MIN_CURSOR_KEY_LENGTH) {
    throw new ConfigError('The cursor key secret must hold a string of at least 32 characters');
  }
  return value;
};
