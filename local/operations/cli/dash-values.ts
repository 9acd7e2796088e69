/**
 * Command-line arguments whose values may begin with a dash. Tokens are base64url text, so about one in
 * 64 begins with `-`; `node:util` `parseArgs` refuses `--client-token -abc…` as ambiguous (only
 * `--client-token=-abc…` is read as a value). Options that always take a value can have it attached.
 */

/**
 * `argv` with the value after each of `options` attached as `--option=value` when it begins with a dash,
 * so `parseArgs` reads it as the option's value. Arguments after `--` are left alone.
 */
export const attachDashValues = (argv: readonly string[], options: readonly string[]): string[] => {
  const attached: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--') {
      attached.push(...argv.slice(index));
      break;
    }
    const value = argv[index + 1];
    if (options.includes(arg) && value !== undefined && value.startsWith('-') && value !== '--') {
      attached.push(`${arg}=${value}`);
      index++;
    } else {
      attached.push(arg);
    }
  }
  return attached;
};
