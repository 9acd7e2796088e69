/** `import <file.ndjson>`: upserts jobs from a file, one JSON job per line, with a progress bar. */
import { ImportAbortedError, type ImportResult, importNdjson } from '../import';
import { createProgressBar } from '../progress';
import { type CliCommand, message, printJson, UsageError } from './command';
import { jobRepository } from './target';

export const importCommand: CliCommand = {
  name: 'import',
  usage: `import <file.ndjson>
      Upserts jobs, one JSON job per line; bad lines are reported by line number and skipped.`,
  options: {},
  run: async ({ positionals, target }) => {
    const [file, ...extra] = positionals;
    if (file === undefined || extra.length > 0) {
      throw new UsageError('import takes exactly one file: import <file.ndjson>');
    }
    message(`Importing ${file} into ${target.description}…`);
    const bar = createProgressBar({ label: 'Importing', unit: 'bytes' });
    const started = Date.now();
    let result: ImportResult;
    try {
      result = await importNdjson(file, {
        repository: jobRepository(),
        onProgress: (progress) => {
          const linesPerSecond = Math.round(progress.lines / Math.max(0.001, (Date.now() - started) / 1000));
          bar.update(
            progress.bytesRead,
            progress.totalBytes,
            `${progress.lines} lines (${linesPerSecond} lines/s), ${progress.imported} imported, ${progress.failed} failed`,
          );
        },
      });
    } catch (error) {
      bar.finish('stopped');
      if (error instanceof ImportAbortedError) printJson(error.partial);
      throw error;
    }
    bar.finish(`${result.imported} imported, ${result.unchanged} unchanged, ${result.failed.length} failed`);
    for (const failure of result.failed) message(`line ${failure.line}: ${failure.message}`);
    printJson(result);
    return result.failed.length === 0 ? 0 : 1;
  },
};
