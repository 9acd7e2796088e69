/**
 * What every CLI command is: a name, its usage lines, the options it takes and the function that runs it.
 * Each command parses its own options (`--stack` and `--region` are everyone's), so an option a command does
 * not take is a usage error rather than silently ignored.
 */
import type { ParseArgsOptionsConfig } from 'node:util';
import type { Target } from './target';

/** The command line is not one the CLI understands (exit code 2). */
export class UsageError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran but found a problem it reports (exit code 1). */
export class CommandFailedError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'CommandFailedError';
  }
}

/** Parsed option values: strings for valued options, booleans for flags. */
export type OptionValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** What a command is handed when it runs. */
export interface CommandInput {
  /** Its options, parsed against its own {@link CliCommand.options}. */
  values: OptionValues;
  /** The arguments after the command's name. */
  positionals: string[];
  /** Where it acts: the local stack or a deployed one; the shared configuration already points there. */
  target: Target;
}

export interface CliCommand {
  name: string;
  /** Usage lines: the synopsis first, then indented explanation. */
  usage: string;
  /** The options this command takes besides `--stack` and `--region`. */
  options: ParseArgsOptionsConfig;
  /** Options whose value may begin with a dash (tokens are base64url; see dash-values.ts). */
  dashValues?: readonly string[];
  /** Runs the command; resolves with the exit code. */
  run: (input: CommandInput) => Promise<number>;
}

/** Writes a result as JSON to standard output. */
export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/** Writes a line for the person at the terminal to standard error. */
export const message = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/** The value of a string option, trimmed; `undefined` when absent. */
export const stringOption = (values: OptionValues, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value.trim() : undefined;
};

/** The value of a string option that must be given and non-blank. */
export const requiredOption = (values: OptionValues, name: string): string => {
  const value = stringOption(values, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
};

/** A decimal integer option of at least `min`. */
export const parseInteger = (text: string, option: string, min: number): number => {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(`--${option} must be an integer ≥ ${min}, got "${text}"`);
  }
  return Number(text);
};

/** Refuses arguments after a command that takes none. */
export const noPositionals = (name: string, positionals: readonly string[]): void => {
  if (positionals.length > 0) throw new UsageError(`${name} takes no arguments`);
};
