/**
 * Reads the examples out of the project's Markdown pages, for the documentation test: the shell
 * commands of every ```bash / ```sh block (a command runs over `\` continuations and over line breaks
 * inside quotes), the comment line above each, the ```json answers shown after a request, and the
 * ```ts programs.
 */
import { readFileSync } from 'node:fs';

/** One shell command of a page. */
export interface ShellExample {
  kind: 'shell';
  page: string;
  /** 1-based line of the command's first line. */
  line: number;
  /** The command as written (continuation lines included). */
  text: string;
  /** The `# …` comment right above the command, if any. */
  comment: string | undefined;
}

/** A JSON block of a page. */
export interface JsonExample {
  kind: 'json';
  page: string;
  line: number;
  text: string;
}

/** A TypeScript block of a page. */
export interface TypeScriptExample {
  kind: 'ts';
  page: string;
  line: number;
  text: string;
}

export type Example = ShellExample | JsonExample | TypeScriptExample;

/** One ```bash / ```sh block of a page, whole, as a reader pastes it. */
export interface ShellBlock {
  page: string;
  /** 1-based line of the block's first line. */
  line: number;
  /** The block's text. */
  text: string;
  /** The commands of the block, as {@link examplesOf} reads them. */
  commands: ShellExample[];
}

/** Whether a command leaves a single- or double-quoted string open at its end. */
const openQuote = (text: string): boolean => {
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (quote === undefined) {
      if (char === '\\') index += 1;
      else if (char === "'" || char === '"') quote = char;
    } else if (char === quote) quote = undefined;
    else if (quote === '"' && char === '\\') index += 1;
  }
  return quote !== undefined;
};

/** The commands of one shell block. */
const shellCommands = (page: string, firstLine: number, body: string): ShellExample[] => {
  const lines = body.split('\n');
  const commands: ShellExample[] = [];
  let comment: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as string;
    const trimmed = line.trim();
    if (trimmed === '') {
      comment = undefined;
      continue;
    }
    if (trimmed.startsWith('#')) {
      comment = trimmed.replace(/^#\s*/, '');
      continue;
    }
    const start = index;
    let text = line;
    while ((text.endsWith('\\') || openQuote(text)) && index + 1 < lines.length) {
      index += 1;
      text += `\n${lines[index] as string}`;
    }
    commands.push({ kind: 'shell', page, line: firstLine + start, text: text.trim(), comment });
    comment = undefined;
  }
  return commands;
};

/** Every fenced block of a Markdown page: its language, first line and text (its indentation removed). */
const fencedBlocks = (text: string): { language: string; line: number; body: string }[] => {
  const fence = /^( *)```(\w*)[^\n]*\n([\s\S]*?)^\1```/gm;
  return [...text.matchAll(fence)].map((match) => {
    const [, indent = '', language = '', rawBody = ''] = match;
    const body = rawBody
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    return { language, line: text.slice(0, match.index).split('\n').length + 1, body };
  });
};

const isShell = (language: string): boolean => language === 'bash' || language === 'sh';

/** Every shell command and JSON block of a Markdown page, in page order. */
export const examplesOf = (path: string, page: string = path): Example[] => {
  const examples: Example[] = [];
  for (const { language, line, body } of fencedBlocks(readFileSync(path, 'utf8'))) {
    if (isShell(language)) examples.push(...shellCommands(page, line, body));
    else if (language === 'json') examples.push({ kind: 'json', page, line, text: body });
    else if (language === 'ts') examples.push({ kind: 'ts', page, line, text: body });
  }
  return examples;
};

/** Every shell block of a Markdown page, whole, in page order. */
export const shellBlocksOf = (path: string, page: string = path): ShellBlock[] =>
  fencedBlocks(readFileSync(path, 'utf8'))
    .filter(({ language }) => isShell(language))
    .map(({ line, body }) => ({ page, line, text: body, commands: shellCommands(page, line, body) }));

/** Whether a shell command sends a request with curl (alone, or as the value of a variable: `X=$(curl …)`). */
export const isCurlCommand = (command: ShellExample): boolean => /^(?:\w+=\$\()?curl\s/.test(command.text);
