/**
 * A listing's coordinates: how they are kept, and how an `approximate` location is published.
 *
 * Kept to 7 decimals (about 1 cm): any finer digit is below what a GPS or a map can tell, and a
 * stored number must fit DynamoDB's number type, which refuses magnitudes below 1e-130 (a JSON
 * latitude of 5e-324 is a valid number that DynamoDB would refuse). A coordinate sent with 7 decimals
 * or fewer is kept exactly as sent.
 */
export const STORED_COORDINATE = {
  decimals: 7,
  description: 'Degrees, kept to 7 decimals (about 1 cm); a finer value is rounded',
} as const;

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

function roundTo(decimals: number): (value: number) => number {
  const scale = 10 ** decimals;
  // `+ 0` turns the -0 that rounding a small negative value gives into 0.
  return (value) => Math.round(value * scale) / scale + 0;
}

/** Rounds a coordinate as it is kept ({@link STORED_COORDINATE}). */
export const storedCoordinate = roundTo(STORED_COORDINATE.decimals);

/** Rounds an approximate location's coordinate to {@link APPROXIMATE_LOCATION}'s grid (about 1 km). */
export const roundCoordinate = roundTo(APPROXIMATE_LOCATION.decimals);
