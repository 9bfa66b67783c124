/**
 * One photo's renditions in a fresh process, for the bench's time and peak-memory figures: reads
 * `{ file, runs }` on stdin, loads the photo worker's renderer (functions/services/photo-renditions.ts)
 * and sharp with libvips held to one thread (Lambda gives the worker one vCPU at 1,769 MB), notes the
 * resident size, renders the file `runs` times, and prints each run's milliseconds, the files made and
 * the process's peak resident set size (`process.resourceUsage().maxRSS`, KB).
 */
import { readFileSync } from 'node:fs';
import { text } from 'node:stream/consumers';

const { file, runs } = JSON.parse(await text(process.stdin)) as { file: string; runs: number };
const { default: sharp } = await import('sharp');
sharp.concurrency(1);
const { renderPhoto } = await import('../../functions/services/photo-renditions.ts');
const bytes = readFileSync(file);
// sharp and libvips loaded and initialised, as in a warm worker, before the file is decoded.
await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ffffff' } })
  .webp()
  .toBuffer();
const baselineRssKb = Math.round(process.memoryUsage().rss / 1024);
const timesMs: number[] = [];
let files: { type: string; width: number; height: number; bytes: number }[] = [];
for (let i = 0; i < runs; i++) {
  const started = performance.now();
  const outcome = await renderPhoto('00000000-0000-8000-8000-000000000000', bytes);
  timesMs.push(performance.now() - started);
  if (!outcome.ok) throw new Error(`renditions-child: ${outcome.reason}: ${outcome.detail}`);
  files = outcome.files.map((f) => ({
    type: f.contentType,
    width: f.width,
    height: f.height,
    bytes: f.sizeBytes,
  }));
}
process.stdout.write(
  JSON.stringify({ timesMs, files, peakRssKb: process.resourceUsage().maxRSS, baselineRssKb }),
);
