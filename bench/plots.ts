/**
 * `npm run bench:plots`: redraws BENCHMARKS.md's plots (bench/plots/*.svg) from the results files already in
 * bench/results/, measuring nothing.
 */
import { writePlots } from './lib/plots';
import { readAllResults } from './lib/report';

for (const plot of writePlots(readAllResults())) process.stderr.write(`wrote bench/plots/${plot.file}\n`);
