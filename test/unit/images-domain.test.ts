import { describe, expect, it } from 'vitest';
import {
  addToGallery,
  editInGallery,
  type GalleryImage,
  GalleryRuleError,
  imageIdFor,
  importIdFor,
  MAX_GALLERY_IMAGES,
  mintedUploadSize,
  orderGallery,
  photoCdnPaths,
  photoKeys,
  removeFromGallery,
  renditionFile,
  renditionPlan,
  renditionUrl,
  uploadImportIdFor,
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

describe('renditions', () => {
  it('plans the widths below the photo and its own up to 2048, never wider; the JPEG at 1024 or the photo’s width', () => {
    // Act + Assess
    expect(renditionPlan(6000)).toEqual({ webp: [320, 640, 1024, 1600, 2048], jpeg: 1024 });
    expect(renditionPlan(2048)).toEqual({ webp: [320, 640, 1024, 1600, 2048], jpeg: 1024 });
    expect(renditionPlan(1200)).toEqual({ webp: [320, 640, 1024, 1200], jpeg: 1024 });
    expect(renditionPlan(800)).toEqual({ webp: [320, 640, 800], jpeg: 800 });
    expect(renditionPlan(320)).toEqual({ webp: [320], jpeg: 320 });
    expect(renditionPlan(40)).toEqual({ webp: [40], jpeg: 40 });
  });

  it('names a rendition by photo, width and its bytes’ hash, and finds its URL beside the default one', () => {
    // Act
    const file = renditionFile('abc', 640, 'ff42ae045aaaff8f0123', 'image/webp');
    // Assess
    expect(file).toBe('abc-640w-ff42ae045aaaff8f.webp');
    expect(renditionFile('abc', 1024, '9bc2a47bbff5f78200', 'image/jpeg')).toBe(
      'abc-1024w-9bc2a47bbff5f782.jpg',
    );
    expect(renditionUrl('https://cdn.example/images/t/p/abc-1024w-9bc2a47bbff5f782.jpg', file)).toBe(
      'https://cdn.example/images/t/p/abc-640w-ff42ae045aaaff8f.webp',
    );
  });

  it('derives the photo id of an import attempt, and an upload’s import id apart from any URL’s', () => {
    // Act + Assess
    expect(imageIdFor('imp', 1)).toBe(imageIdFor('imp', 1));
    expect(imageIdFor('imp', 2)).not.toBe(imageIdFor('imp', 1));
    expect(uploadImportIdFor('t', 'p', 'uploads/t/p/u-10')).not.toBe(
      importIdFor('t', 'p', 'uploads/t/p/u-10'),
    );
    expect(uploadImportIdFor('t', 'p', 'uploads/t/p/u-10')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab]/,
    );
  });

  it("lists a photo's keys and CDN paths: original and renditions; a photo from before renditions by its served key", () => {
    // Prepare
    const rendered: GalleryImage = {
      ...photo('abc', '2026-01-01T00:00:00Z'),
      key: 'originals/t/p/imp.jpg',
      sortOrder: 0,
      isPrimary: true,
      renditions: [
        {
          file: 'abc-320w-0000000000000000.webp',
          width: 320,
          height: 213,
          contentType: 'image/webp',
          sizeBytes: 1,
        },
        {
          file: 'abc-320w-1111111111111111.jpg',
          width: 320,
          height: 213,
          contentType: 'image/jpeg',
          sizeBytes: 1,
        },
      ],
    };
    const legacy: GalleryImage = { ...photo('old', '2026-01-01T00:00:00Z'), sortOrder: 1, isPrimary: false };
    // Act + Assess
    expect(photoKeys('t', 'p', rendered)).toEqual([
      'originals/t/p/imp.jpg',
      'images/t/p/abc-320w-0000000000000000.webp',
      'images/t/p/abc-320w-1111111111111111.jpg',
    ]);
    expect(photoCdnPaths('t', 'p', rendered)).toEqual(['/images/t/p/abc-*']);
    expect(photoKeys('t', 'p', legacy)).toEqual(['images/t/p/old.jpg']);
    expect(photoCdnPaths('t', 'p', legacy)).toEqual(['/images/t/p/old.jpg']);
  });
});
