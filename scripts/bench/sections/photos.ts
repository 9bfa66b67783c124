/**
 * Photo renditions, what the photo import worker spends on one photo (functions/services/
 * photo-renditions.ts), per size: a 24-megapixel camera JPEG and a 4,000 px PNG, both made by sharp
 * (scripts/local/camera-photos.ts). Each runs in a fresh process (renditions-child.ts) with libvips on
 * one thread, as on the worker's vCPU share: time a photo (the first, and the median of the others),
 * and the peak resident size beside the size with sharp loaded. The worker's memory and timeout
 * (functions/workers.ts) are set from these figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cameraJpeg, largePng } from '../../local/camera-photos.ts';
import { runChild } from '../child.ts';
import { defineSection } from '../context.ts';
import { fixed, median, round, table } from '../stats.ts';

const RUNS = 4;
interface ChildAnswer {
  timesMs: number[];
  files: { type: string; width: number; height: number; bytes: number }[];
  peakRssKb: number;
  baselineRssKb: number;
}

export const photos = defineSection({
  name: 'photos',
  about: 'renditions of a camera JPEG and a large PNG: time and peak memory a photo, one libvips thread',
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'lls-bench-renditions-'));
    try {
      const sizes = [
        { photo: '24-megapixel camera JPEG (6,000 × 4,000)', bytes: await cameraJpeg() },
        { photo: '4,000 × 3,000 PNG', bytes: await largePng() },
      ];
      const rows = [];
      for (const [n, p] of sizes.entries()) {
        const file = join(dir, `photo-${n}`);
        writeFileSync(file, p.bytes);
        ctx.log(`  ${p.photo}, ${RUNS} runs…`);
        const a = await runChild<ChildAnswer>('sections/renditions-child.ts', { file, runs: RUNS });
        rows.push({
          photo: p.photo,
          mb: round(p.bytes.length / 1048576),
          firstMs: round(a.timesMs[0] ?? NaN, 0),
          medianMs: round(median(a.timesMs.slice(1)), 0),
          peakRssMb: round(a.peakRssKb / 1024),
          baselineRssMb: round(a.baselineRssKb / 1024),
          files: a.files
            .map((f) => `${f.type.replace('image/', '')} ${f.width} px ${fixed(f.bytes / 1024, 0)} KB`)
            .join(', '),
        });
      }
      return { runs: RUNS, rows };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
  render({ runs, rows }) {
    return [
      `A fresh process a photo, libvips on one thread, ${runs} renders (the median of the last ${runs - 1}).`,
      '',
      ...table(
        ['photo', 'MB', 'ms a photo', 'first ms', 'peak RSS MB', 'with sharp loaded MB'],
        rows.map((r) => [
          r.photo,
          fixed(r.mb),
          fixed(r.medianMs, 0),
          fixed(r.firstMs, 0),
          fixed(r.peakRssMb),
          fixed(r.baselineRssMb),
        ]),
      ),
      '',
      ...rows.map((r) => `- ${r.photo}: ${r.files}`),
    ];
  },
});
