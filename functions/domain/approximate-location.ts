/**
 * How an `approximate` listing location is published on the site: its coordinates rounded to 2
 * decimals, a grid of 0.01° (1.1 km north–south, 1.1 km × cos(latitude) east–west), so the point
 * shown is at most about 800 m from the home and every home of a cell shows the same point.
 * `description` is what the OpenAPI document says of it (the guides say the same).
 */
export const APPROXIMATE_LOCATION = {
  decimals: 2,
  description: 'rounded to 2 decimals (about 1 km)',
} as const;

const SCALE = 10 ** APPROXIMATE_LOCATION.decimals;

/** Rounds an approximate location's coordinate to {@link APPROXIMATE_LOCATION}'s grid (about 1 km). */
export function roundCoordinate(value: number): number {
  return Math.round(value * SCALE) / SCALE;
}
