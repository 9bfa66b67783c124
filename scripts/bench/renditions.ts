/**
 * The renditions part of the photos section: what the photo import worker spends making one photo's
 * renditions (functions/services/photo-renditions.ts), per photo size: a 24-megapixel camera JPEG and
 * a 4,000 px PNG, both made by sharp itself (test/support/camera-photos.ts). Each size runs in a fresh
 * process (renditions-child.ts) with libvips on one thread, as on the worker's one vCPU: time per
 * photo (median of the runs after the first, and the first) and the process's peak resident size,
 * beside its size with sharp loaded. The worker's memory and timeout (functions/workers.ts) are set
 * from these figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cameraJpeg, largePng } from '../../test/support/camera-photos.ts';
import { runJsonChild } from './child-json.ts';
import { percentile, round } from './stats.ts';

export interface RenditionFigures {
  photo: string;
  width: number;
  height: number;
  fileBytes: number;
  runs: number;
  /** The first render of the process (libvips' code paths cold), and the median of the others. */
  firstMs: number;
  medianMs: number;
  peakRssMb: number;
  baselineRssMb: number;
  /** The files made: type, width and bytes. */
  files: { type: string; width: number; height: number; bytes: number }[];
}

interface ChildAnswer {
  timesMs: number[];
  files: RenditionFigures['files'];
  peakRssKb: number;
  baselineRssKb: number;
}

export async function measureRenditions(options: {
  runs: number;
  log: (line: string) => void;
}): Promise<RenditionFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), 'lls-bench-renditions-'));
  try {
    const photos = [
      { photo: '24-megapixel camera JPEG', width: 6000, height: 4000, bytes: await cameraJpeg() },
      { photo: '4,000 px PNG', width: 4000, height: 3000, bytes: await largePng() },
    ];
    const figures: RenditionFigures[] = [];
    for (const [n, p] of photos.entries()) {
      const file = join(dir, `photo-${n}`);
      writeFileSync(file, p.bytes);
      options.log(
        `  renditions: ${p.photo} (${round(p.bytes.length / 1048576, 1)} MB), ${options.runs} runs…`,
      );
      const answer = await runJsonChild<ChildAnswer>('renditions-child.ts', { file, runs: options.runs });
      const later = [...answer.timesMs.slice(1)].sort((a, b) => a - b);
      figures.push({
        photo: p.photo,
        width: p.width,
        height: p.height,
        fileBytes: p.bytes.length,
        runs: answer.timesMs.length,
        firstMs: round(answer.timesMs[0] ?? 0, 0),
        medianMs: round(later.length ? percentile(later, 50) : (answer.timesMs[0] ?? 0), 0),
        peakRssMb: round(answer.peakRssKb / 1024, 1),
        baselineRssMb: round(answer.baselineRssKb / 1024, 1),
        files: answer.files,
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
