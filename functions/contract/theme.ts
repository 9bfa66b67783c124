import * as z from 'zod/mini';
import type { TenantRecord } from '../data/tenants.ts';

const Colour = z.string().check(z.regex(/^#[0-9a-fA-F]{6}$/, 'Must be a colour in the form #rrggbb'));
const FontName = z.string().check(z.trim(), z.minLength(1), z.maxLength(100));
const CORNER_STYLES = ['square', 'rounded', 'pill'] as const;

/**
 * What `theme set --file theme.json` accepts: every field optional (a missing one keeps its
 * default), nothing else (an unknown field is refused, so a typo is not silently dropped).
 */
export const ThemeIn = z.strictObject({
  colors: z.optional(
    z.strictObject({
      primary: z.optional(Colour),
      accent: z.optional(Colour),
      background: z.optional(Colour),
      text: z.optional(Colour),
    }),
  ),
  fonts: z.optional(z.strictObject({ heading: z.optional(FontName), body: z.optional(FontName) })),
  corner_style: z.optional(z.enum(CORNER_STYLES)),
  logo_url: z.optional(
    z.nullable(
      z
        .string()
        .check(z.maxLength(2048), z.regex(/^https:\/\/[^\s/$.?#][^\s]*$/i, 'Must be an https:// URL')),
    ),
  ),
  show_powered_by: z.optional(z.boolean()),
});
export type ThemeInput = z.infer<typeof ThemeIn>;

/** A Tenant without a theme gets these: neutral, readable, the platform's badge shown. */
export const DEFAULT_THEME = {
  colors: { primary: '#1f4e79', accent: '#f2a900', background: '#ffffff', text: '#1a1a1a' },
  fonts: { heading: 'Inter', body: 'Inter' },
  corner_style: 'rounded',
  logo_url: null,
  show_powered_by: true,
} as const;

export const ThemeOut = z.object({
  colors: z.object({ primary: z.string(), accent: z.string(), background: z.string(), text: z.string() }),
  fonts: z.object({ heading: z.string(), body: z.string() }),
  corner_style: z.enum(CORNER_STYLES),
  logo_url: z.nullable(z.string()),
  languages: z.array(z.string()).check(z.describe('The Site Languages, the default first')),
  default_language: z.string(),
  website: z.nullable(z.string()),
  show_powered_by: z.boolean(),
});

/** The fields that hold a value: an absent one keeps its default. */
function defined<T extends object>(value: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The Tenant's theme over the defaults, with its languages and website address. */
export function toThemeOut(tenant: TenantRecord): z.infer<typeof ThemeOut> {
  const stored = (tenant.theme ?? {}) as ThemeInput;
  return {
    colors: { ...DEFAULT_THEME.colors, ...defined(stored.colors) },
    fonts: { ...DEFAULT_THEME.fonts, ...defined(stored.fonts) },
    corner_style: stored.corner_style ?? DEFAULT_THEME.corner_style,
    logo_url: stored.logo_url ?? DEFAULT_THEME.logo_url,
    languages: tenant.languages,
    default_language: tenant.languages[0] ?? 'en',
    website: tenant.website ?? null,
    show_powered_by: stored.show_powered_by ?? DEFAULT_THEME.show_powered_by,
  };
}
