/**
 * The images function's work on one upload: check the bytes and render the preview (2,048 px) and thumbnail
 * (320 px), for a 24-megapixel JPEG and a 100-megapixel PNG — against `sharp` alone making the same two WebP
 * renditions of the same bytes (no type check, no header read, no checksum), the same run. Each measurement runs in
 * a process of its own, so its peak memory (the process's maximum resident set, Node and libvips included) is its
 * own.
 *
 *   npx tsx bench/suites/images.ts [--quick]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { renderImage } from '../../functions/images/render';
import type { Figure } from '../lib/report';
import { round } from '../lib/stats';
import { runSuite } from '../lib/suite';

type Way = 'function' | 'sharp';

interface Measured {
  ms: number;
  peakMiB: number;
}

/** In a child: one way over one file, answering its time and the process's peak memory as JSON. */
const measureOnce = async (way: Way, path: string): Promise<void> => {
  const bytes = readFileSync(path);
  const started = performance.now();
  if (way === 'function') {
    const image = await renderImage(bytes);
    if (image.status !== 'ready') throw new Error(image.reason);
  } else {
    const preview = await sharp(bytes, { limitInputPixels: false })
      .autoOrient()
      .resize({ width: 2_048, height: 2_048, fit: 'inside' })
      .webp({ quality: 80 })
      .toBuffer();
    await sharp(preview).resize({ width: 320, height: 320, fit: 'inside' }).webp({ quality: 80 }).toBuffer();
  }
  const ms = performance.now() - started;
  process.stdout.write(JSON.stringify({ ms, peakMiB: process.resourceUsage().maxRSS / 1024 }));
};

const child = (way: Way, path: string): Measured => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--one', way, path], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${way} on ${path} failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Measured;
};

/** The median run of several, by time; its peak memory is the largest any run reached. */
const median = (runs: Measured[]): Measured => {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  return { ms: sorted[Math.floor(sorted.length / 2)]!.ms, peakMiB: Math.max(...runs.map((run) => run.peakMiB)) };
};

const oneIndex = process.argv.indexOf('--one');
if (oneIndex !== -1) {
  await measureOnce(process.argv[oneIndex + 1] as Way, process.argv[oneIndex + 2] as string);
} else {
  await runSuite('images', 'The images function: checking and rendering one upload', async ({ mode, log }) => {
    const runs = mode === 'quick' ? 1 : 3;
    const directory = mkdtempSync(join(tmpdir(), 'bench-images-'));
    try {
      log('drawing a 24-megapixel JPEG (6,000 × 4,000, noise: no easy compression) and a 100-megapixel PNG');
      const jpeg = join(directory, 'photo-24mp.jpg');
      writeFileSync(
        jpeg,
        await sharp({
          create: {
            width: 6_000,
            height: 4_000,
            channels: 3,
            background: '#808080',
            noise: { type: 'gaussian', mean: 128, sigma: 40 },
          },
        })
          .jpeg({ quality: 90 })
          .toBuffer(),
      );
      const png = join(directory, 'scan-100mp.png');
      writeFileSync(
        png,
        await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#7a8fa6' } })
          .png()
          .toBuffer(),
      );
      const figures: Figure[] = [];
      for (const [name, path] of [
        ['24-megapixel JPEG', jpeg],
        ['100-megapixel PNG', png],
      ] as const) {
        log(`${name}: ${runs} run(s) each of the function and of sharp alone`);
        const ours = median(Array.from({ length: runs }, () => child('function', path)));
        const alone = median(Array.from({ length: runs }, () => child('sharp', path)));
        const slug = name.startsWith('24') ? 'jpeg-24mp' : 'png-100mp';
        figures.push(
          {
            id: `images.${slug}.ms`,
            label: `${name}: checked, preview and thumbnail rendered`,
            value: round(ours.ms),
            unit: 'ms',
            baseline: { label: 'sharp alone, the same two renditions', value: round(alone.ms), unit: 'ms' },
            ratio: { value: round(ours.ms / alone.ms), text: `${round(ours.ms / alone.ms)}× sharp alone` },
          },
          {
            id: `images.${slug}.peak-mib`,
            label: `${name}: peak memory of the process`,
            value: round(ours.peakMiB),
            unit: 'MiB',
            baseline: { label: 'sharp alone', value: round(alone.peakMiB), unit: 'MiB' },
            ratio: {
              value: round(ours.peakMiB / alone.peakMiB),
              text: `${round(ours.peakMiB / alone.peakMiB)}× sharp alone`,
            },
          },
        );
      }
      return {
        parameters: {
          runs,
          jpegBytes: readFileSync(jpeg).length,
          pngBytes: readFileSync(png).length,
        },
        figures,
        notes: [
          'Cost per image: the function reads the upload once (1 GET, its bytes), writes 2 objects (the renditions) and 1 item (one UpdateItem); nothing else.',
          'The 100-megapixel PNG is one flat colour (a small file); decoding and resizing still touch every pixel.',
        ],
      };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
}
