import { describe, expect, it } from 'vitest';
import { getPlace, type PlaceRecord } from '../../functions/data/places.ts';
import { orderByDepth, type PlaceInput, savePlace } from '../../functions/services/places.ts';
import { AdminInputError } from '../../functions/services/tenants.ts';
import { unique } from '../support/factories.ts';

/** The error a call rejects with (undefined if it resolves), caught at once so none goes unhandled. */
const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const prefix = () => unique('PL').toUpperCase().replace(/-/g, '');

describe('savePlace', () => {
  it('builds the path root first from the stored parent', async () => {
    // Prepare
    const p = prefix();
    await savePlace({ code: p, name: 'Spain', kind: 'country' });
    await savePlace({ code: `${p}-AN`, name: 'Andalusia', parent: p, kind: 'region' });
    // Act
    const town = await savePlace({ code: `${p}-AN-MAR`, name: ' Marbella ', parent: `${p}-AN` });
    // Assess
    expect(town.path).toEqual([
      { code: p, name: 'Spain', kind: 'country' },
      { code: `${p}-AN`, name: 'Andalusia', kind: 'region' },
      { code: `${p}-AN-MAR`, name: 'Marbella', kind: 'area' },
    ]);
    expect(await getPlace(town.code)).toMatchObject({
      parentCode: `${p}-AN`,
      name: 'Marbella',
      path: town.path,
    });
  });

  it('rejects an unknown parent, a bad code and a blank name, storing nothing', async () => {
    // Prepare
    const p = prefix();
    // Act
    const orphan = await failure(savePlace({ code: `${p}-X`, name: 'Orphan', parent: `${p}-MISSING` }));
    const badCode = await failure(savePlace({ code: 'has space', name: 'Bad' }));
    const blank = await failure(savePlace({ code: `${p}-B`, name: '  ' }));
    // Assess
    for (const error of [orphan, badCode, blank]) expect(error).toBeInstanceOf(AdminInputError);
    expect(await getPlace(`${p}-X`)).toBeUndefined();
    expect(await getPlace(`${p}-B`)).toBeUndefined();
  });

  it('refuses to make a Place its own ancestor and keeps createdAt on a re-save', async () => {
    // Prepare
    const p = prefix();
    const root = await savePlace({ code: p, name: 'Root' });
    await savePlace({ code: `${p}-C`, name: 'Child', parent: p });
    // Act
    const cycle = await failure(savePlace({ code: p, name: 'Root', parent: `${p}-C` }));
    const renamed = await savePlace({ code: p, name: 'Root renamed' });
    // Assess
    expect(cycle).toBeInstanceOf(AdminInputError);
    expect(renamed.createdAt).toBe(root.createdAt);
    expect(renamed.name).toBe('Root renamed');
  });
});

describe('orderByDepth', () => {
  it('puts parents before children so that an import listed children first succeeds', async () => {
    // Prepare
    const p = prefix();
    const places: PlaceInput[] = [
      { code: `${p}-A-1-x`, name: 'Street', parent: `${p}-A-1` },
      { code: `${p}-B`, name: 'B', parent: p },
      { code: `${p}-A-1`, name: 'Town', parent: `${p}-A` },
      { code: `${p}-A`, name: 'A', parent: p },
      { code: p, name: 'Country', kind: 'country' },
    ];
    // Act
    const ordered = orderByDepth(places);
    const parents = new Map<string, PlaceRecord>();
    for (const place of ordered) await savePlace(place, parents);
    // Assess
    const position = new Map(ordered.map((o, i) => [o.code, i]));
    for (const place of places) {
      if (place.parent) expect(position.get(place.parent)).toBeLessThan(position.get(place.code) as number);
    }
    expect(ordered).toHaveLength(places.length);
    const leaf = await getPlace(`${p}-A-1-x`);
    expect(leaf?.path.map((e) => e.code)).toEqual([p, `${p}-A`, `${p}-A-1`, `${p}-A-1-x`]);
  });

  it('keeps places whose parent is outside the file (already stored or unknown) and loops finite', () => {
    // Prepare
    const places: PlaceInput[] = [
      { code: 'C1', name: 'c1', parent: 'C2' },
      { code: 'C2', name: 'c2', parent: 'C1' },
      { code: 'E1', name: 'e1', parent: 'ELSEWHERE' },
    ];
    // Act
    const ordered = orderByDepth(places);
    // Assess
    expect(ordered.map((o) => o.code).sort()).toEqual(['C1', 'C2', 'E1']);
  });
});
