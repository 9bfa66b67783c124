import { describe, expect, it } from 'vitest';
import {
  addToGallery,
  editInGallery,
  type GalleryImage,
  GalleryRuleError,
  importIdFor,
  MAX_GALLERY_IMAGES,
  mintedUploadSize,
  orderGallery,
  removeFromGallery,
  uploadKey,
} from '../../functions/domain/images.ts';

const photo = (id: string, createdAt: string): Omit<GalleryImage, 'sortOrder' | 'isPrimary'> => ({
  id,
  key: `images/t/p/${id}.jpg`,
  url: `https://cdn.example/images/t/p/${id}.jpg`,
  width: 10,
  height: 10,
  contentType: 'image/jpeg',
  sizeBytes: 100,
  createdAt,
});

const covers = (images: GalleryImage[]) => images.filter((i) => i.isPrimary).map((i) => i.id);

describe('the gallery rules', () => {
  it('makes the first photo the cover and appends later ones', () => {
    // Act
    const one = addToGallery([], photo('a', '2026-01-01T00:00:00Z'), {});
    const two = addToGallery(one, photo('b', '2026-01-02T00:00:00Z'), {});
    // Assess
    expect(two.map((i) => [i.id, i.sortOrder, i.isPrimary])).toEqual([
      ['a', 0, true],
      ['b', 1, false],
    ]);
  });

  it('moves the cover on is_primary, keeping exactly one', () => {
    // Prepare
    const two = addToGallery(
      addToGallery([], photo('a', '2026-01-01T00:00:00Z'), {}),
      photo('b', '2026-01-02T00:00:00Z'),
      {
        isPrimary: true,
      },
    );
    // Act
    const back = editInGallery(two, 'a', { isPrimary: true });
    // Assess
    expect(covers(two)).toEqual(['b']);
    expect(covers(back)).toEqual(['a']);
    expect(() => editInGallery(back, 'a', { isPrimary: false })).toThrow(GalleryRuleError);
  });

  it('orders by sort_order then created_at, and passes the cover on when it is removed', () => {
    // Prepare
    let gallery: GalleryImage[] = [];
    for (const [id, day] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      gallery = addToGallery(gallery, photo(id, `2026-01-0${day}T00:00:00Z`), { sortOrder: 5 });
    }
    // Act
    const moved = editInGallery(gallery, 'c', { sortOrder: 1 });
    const removed = removeFromGallery(moved, 'a');
    // Assess
    expect(orderGallery(gallery).map((i) => i.id)).toEqual(['a', 'b', 'c']);
    expect(moved.map((i) => i.id)).toEqual(['c', 'a', 'b']);
    expect(covers(moved)).toEqual(['a']);
    expect(removed.map((i) => [i.id, i.isPrimary])).toEqual([
      ['c', true],
      ['b', false],
    ]);
  });

  it('refuses the photo past the hundredth', () => {
    // Prepare
    let gallery: GalleryImage[] = [];
    for (let n = 0; n < MAX_GALLERY_IMAGES; n++)
      gallery = addToGallery(gallery, photo(`p${n}`, '2026-01-01T00:00:00Z'), {});
    // Act + Assess
    expect(gallery).toHaveLength(100);
    expect(() => addToGallery(gallery, photo('one-more', '2026-01-01T00:00:00Z'), {})).toThrow(/at most 100/);
  });
});

describe('keys and ids', () => {
  it('derives one import id per Tenant, listing and URL', () => {
    const id = importIdFor('t', 'p', 'https://x.example/a.jpg');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(importIdFor('t', 'p', 'https://x.example/a.jpg')).toBe(id);
    expect(importIdFor('t', 'p2', 'https://x.example/a.jpg')).not.toBe(id);
    expect(importIdFor('t2', 'p', 'https://x.example/a.jpg')).not.toBe(id);
  });

  it('reads the minted size back from an upload key of the same listing only', () => {
    const key = uploadKey('t', 'p', '0b6f5a1e-8d3c-4f0e-9a51-3f1c2a9b7d10', 2048);
    expect(mintedUploadSize('t', 'p', key)).toBe(2048);
    expect(mintedUploadSize('t', 'other', key)).toBeUndefined();
    expect(mintedUploadSize('t', 'p', `${key}/../../x`)).toBeUndefined();
    expect(mintedUploadSize('t', 'p', 'uploads/t/p/not-a-key')).toBeUndefined();
  });
});
