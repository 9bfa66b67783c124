/**
 * Photos for the demo catalogue, drawn on this machine (nothing is downloaded): a façade under a sky,
 * with sea or hills behind, in colours and proportions that follow the listing, encoded as baseline
 * JPEG by `jpeg-js`. Deterministic: the same listing and view give the same bytes.
 */
import jpeg from 'jpeg-js';

export const PHOTO_WIDTH = 640;
export const PHOTO_HEIGHT = 427;

type Rgb = [number, number, number];

/** A small deterministic PRNG (mulberry32): photos differ per listing, never per run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [
  a[0] + (b[0] - a[0]) * t,
  a[1] + (b[1] - a[1]) * t,
  a[2] + (b[2] - a[2]) * t,
];

const WALLS: Rgb[] = [
  [244, 236, 220],
  [236, 214, 190],
  [250, 248, 242],
  [222, 196, 160],
  [214, 226, 232],
];
const ROOFS: Rgb[] = [
  [176, 84, 58],
  [150, 70, 50],
  [90, 90, 96],
  [196, 110, 70],
];

/** What a photo shows: the front of the building, its garden side, or the view. */
export type PhotoView = 'facade' | 'garden' | 'view';

/**
 * One JPEG of the listing numbered `listing` (any integer), showing `view`. `seaside` puts the sea
 * on the horizon instead of hills; `floors` is the building's height.
 */
export function demoPhoto(options: {
  listing: number;
  view: PhotoView;
  seaside: boolean;
  floors: number;
}): Buffer {
  const { listing, view, seaside } = options;
  const rand = seededRandom(listing * 7919 + ['facade', 'garden', 'view'].indexOf(view) * 104729 + 1);
  const w = PHOTO_WIDTH;
  const h = PHOTO_HEIGHT;
  const data = Buffer.alloc(w * h * 4);
  const horizon = Math.round(h * (view === 'view' ? 0.5 : 0.62 + rand() * 0.06));
  const skyTop: Rgb = [60 + rand() * 30, 120 + rand() * 40, 200 + rand() * 40];
  const skyLow: Rgb = [190 + rand() * 30, 215 + rand() * 20, 240];
  const far: Rgb = seaside ? [30 + rand() * 20, 100 + rand() * 40, 150 + rand() * 40] : [110, 140, 100];
  const ground: Rgb = view === 'garden' ? [96, 150, 80] : [200 + rand() * 20, 190, 170];
  const wall = WALLS[Math.floor(rand() * WALLS.length)] as Rgb;
  const roof = ROOFS[Math.floor(rand() * ROOFS.length)] as Rgb;
  const sun = { x: w * (0.15 + rand() * 0.7), y: h * (0.12 + rand() * 0.15), r: 26 + rand() * 16 };
  const hill = (x: number) => horizon - 30 - 25 * Math.sin(x / (70 + (listing % 5) * 15) + listing);

  // The building: a block with a roof and rows of windows (smaller in the distant "view" shot).
  const scale = view === 'view' ? 0.35 : view === 'garden' ? 0.75 : 1;
  const floors = Math.max(1, Math.min(options.floors, 6));
  const bw = Math.round(w * (0.35 + rand() * 0.2) * scale);
  const bh = Math.round(Math.min(h * 0.55, 70 * floors + 40) * scale);
  const bx = Math.round((view === 'view' ? w * 0.7 : (w - bw) / 2) + (rand() - 0.5) * 80 * scale);
  const by = horizon + Math.round((view === 'view' ? 0 : 40) * scale) - bh;
  const roofH = Math.round(bh * 0.22);
  const cols = Math.max(2, Math.round(bw / (70 * scale)));
  const window = (x: number, y: number): boolean => {
    const cw = bw / cols;
    const rh = (bh - roofH) / floors;
    const cx = (x - bx) % cw;
    const ry = (y - by - roofH) % rh;
    return cx > cw * 0.28 && cx < cw * 0.72 && ry > rh * 0.25 && ry < rh * 0.75;
  };

  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let c: Rgb;
      if (y < horizon) {
        c = mix(skyTop, skyLow, y / horizon);
        const d = Math.hypot(x - sun.x, y - sun.y);
        if (d < sun.r) c = [255, 244, 200];
        else if (d < sun.r * 3) c = mix([255, 240, 200], c, (d - sun.r) / (sun.r * 2));
        if (!seaside && y > hill(x)) c = mix(far, [80, 110, 80], (y - hill(x)) / 60);
        if (seaside && y > horizon - 6) c = far;
      } else {
        c = mix(
          seaside && view === 'view' ? far : ground,
          [60, 70, 60],
          ((y - horizon) / (h - horizon)) * 0.5,
        );
        if (seaside && view === 'view' && Math.sin(x / 23 + y * 0.9) > 0.985) c = [230, 240, 245];
      }
      const inBody =
        x >= bx && x < bx + bw && y >= by + roofH && y < horizon + (view === 'view' ? 0 : 40 * scale);
      const roofHalf = ((y - by) / roofH) * (bw / 2 + 12);
      const inRoof = y >= by && y < by + roofH && Math.abs(x - (bx + bw / 2)) < roofHalf;
      if (inRoof) c = mix(roof, [0, 0, 0], (y - by) / roofH / 4);
      if (inBody)
        c = window(x, y) ? [70 + (y % 7) * 4, 100, 130] : mix(wall, [150, 140, 130], (x - bx) / bw / 5);
      const grain = (rand() - 0.5) * 6; // a little sensor noise: flat colour areas look drawn
      const i = (y * w + x) * 4;
      data[i] = Math.max(0, Math.min(255, c[0] + grain));
      data[i + 1] = Math.max(0, Math.min(255, c[1] + grain));
      data[i + 2] = Math.max(0, Math.min(255, c[2] + grain));
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width: w, height: h }, 82).data;
}
