/**
 * An `approximate` listing location on the public site is rounded to about 1 km, as the guides and
 * the OpenAPI document say: its coordinates snap to a grid of 0.01° (1.1 km north–south, less
 * east–west away from the equator), so a published point is at most about 800 m from the home and
 * every home of a cell publishes the same point. The documents say the same thing everywhere.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { APPROXIMATE_LOCATION } from '../../functions/domain/coordinates.ts';
import { publicLocation } from '../../functions/domain/site-search.ts';

/** Great-circle distance in metres. */
function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

const approximate = (latitude: number, longitude: number) =>
  publicLocation({ latitude, longitude, address: '1 Main Street', locationPrecision: 'approximate' });

describe('an approximate location', () => {
  it('publishes coordinates rounded to 2 decimals and no address', () => {
    expect(approximate(36.123456, -5.123456)).toEqual({ address: null, latitude: 36.12, longitude: -5.12 });
    expect(approximate(-33.8688, 151.2093)).toEqual({ address: null, latitude: -33.87, longitude: 151.21 });
  });

  it('publishes one point for every home of a cell about 1 km across', () => {
    // Arrange: homes spread over the cell around 36.12, -5.12 (about 1.1 km × 0.9 km there).
    const homes: [number, number][] = [];
    for (let i = 0; i < 10; i++)
      for (let j = 0; j < 10; j++) homes.push([36.1151 + i * 0.00098, -5.1249 + j * 0.00098]);
    // Act
    const published = new Set(homes.map(([lat, lon]) => JSON.stringify(approximate(lat, lon))));
    // Assess
    expect(published).toEqual(
      new Set([JSON.stringify({ address: null, latitude: 36.12, longitude: -5.12 })]),
    );
  });

  it('is never more than about 800 m from the home, and the grid is about 1 km', () => {
    let farthest = 0;
    for (let k = 0; k < 2000; k++) {
      const home = { lat: -60 + ((k * 7.313_791) % 120), lon: -180 + ((k * 13.709_431) % 360) };
      const shown = approximate(home.lat, home.lon);
      farthest = Math.max(farthest, metres(home, { lat: shown.latitude ?? 0, lon: shown.longitude ?? 0 }));
    }
    expect(farthest).toBeLessThan(800);
    expect(farthest).toBeGreaterThan(300);
    expect(APPROXIMATE_LOCATION.decimals).toBe(2);
  });
});

describe('the documents', () => {
  it('describe approximate coordinates as the code rounds them (about 1 km), nowhere as 100 m', () => {
    const texts = {
      openapi: readFileSync('docs/openapi.json', 'utf8'),
      'site-api.md': readFileSync('docs/site-api.md', 'utf8'),
      'listings.md': readFileSync('docs/listings.md', 'utf8'),
      'SECURITY.md': readFileSync('SECURITY.md', 'utf8'),
    };
    for (const [name, text] of Object.entries(texts)) {
      expect(text, name).not.toMatch(/3 decimals|about 100 m/);
      expect(text, name).toMatch(/about 1 km|≈1 km/);
    }
    const descriptions = [...texts.openapi.matchAll(/"description": "([^"]*approximate:[^"]*)"/g)].map(
      (m) => m[1],
    );
    expect(descriptions.length).toBeGreaterThan(0);
    for (const description of descriptions) expect(description).toMatch(/about 1 km/);
  });
});
