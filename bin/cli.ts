/**
 * `npm run cli -- <command>`: administration of the local stack, or of a deployed one with `--stack <name>`.
 * The commands live in local/operations/cli/.
 */
import { runCli } from '../local/operations/cli/run';
import '../local/search/use-embedded-engine';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
