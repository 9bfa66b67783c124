/**
 * One photo's renditions in a fresh process (photos.ts): the photo worker's renderer with libvips
 * held to one thread, `runs` times; answers each run's milliseconds, the files made, the peak
 * resident size (`maxRSS`) and the size once sharp is loaded and initialised, as in a warm worker.
 */
import { readFileSync } from 'node:fs';
import { answer, childInput } from '../child.ts';

const { file, runs } = await childInput<{ file: string; runs: number }>();
const { default: sharp } = await import('sharp');
sharp.concurrency(1);
const { renderPhoto } = await import('../../../functions/services/photo-renditions.ts');
const bytes = readFileSync(file);
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
  if (!outcome.ok) throw new Error(`renditions: ${outcome.reason}: ${outcome.detail}`);
  files = outcome.files.map((f) => ({
    type: f.contentType,
    width: f.width,
    height: f.height,
    bytes: f.sizeBytes,
  }));
}
answer({ timesMs, files, peakRssKb: process.resourceUsage().maxRSS, baselineRssKb });
