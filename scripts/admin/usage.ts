/**
 * What each admin command takes and does: the usage lines of `--help`, and the flags each command
 * accepts (read from its line, so that the help and the check cannot disagree). Kept apart from the
 * commands, which import the data modules: those read the table's endpoint from the environment on
 * import, and a bad command line is answered before any connection is made.
 */

/** `listing import`'s default concurrency (IMPORT_CONCURRENCY; test/unit/admin-usage.test.ts ties them). */
export const IMPORT_CONCURRENCY_DEFAULT = 8;

/** Every admin command, keyed by "<group> <action>", with its flags and a note. */
export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  'tenant create': '--slug SLUG --name NAME [--languages en,es] [--website URL] [--country ES]',
  'tenant update':
    '--tenant SLUG [--name NAME] [--languages en,es] [--website URL] [--country ES] [--subscription active|read_only] [--suspended true|false] [--rate-limit-per-minute N] [--ai on|off] [--ai-monthly-limit-usd N]',
  'tenant show': '--tenant SLUG',
  'agent create': '--tenant SLUG --name NAME --email EMAIL [--phone P] [--admin]',
  'key create': '--tenant SLUG --name NAME --scopes s1,s2 [--expires-at ISO]',
  'key revoke': '--tenant SLUG --id ID',
  'key list': '--tenant SLUG   (every secret and publishable key; never the keys themselves)',
  'site-key create':
    '--tenant SLUG --origins https://a.example,https://*.a.example [--name NAME]   (the key is shown only here)',
  'site-key update': '--tenant SLUG --id ID --origins https://a.example,...   (replaces the whole list)',
  'site-key revoke': '--tenant SLUG --id ID',
  'webhook create':
    '--tenant SLUG --url URL --events a,b   (a console endpoint; the secret is shown only here)',
  'webhook list': '--tenant SLUG',
  'area create': '--tenant SLUG --kind region|zone|neighborhood|community --name NAME [--places CODE,...]',
  'area add-listing': '--tenant SLUG --area AREA_ID --listing PROPERTY_ID',
  'area exclude-listing': '--tenant SLUG --area AREA_ID --listing PROPERTY_ID',
  'area recompute': '--tenant SLUG [--area AREA_ID]',
  'lead rekey':
    '--tenant SLUG   (re-files Leads stored under older keys: archived ones, legacy search tokens; rerunnable)',
  'listing import': `--tenant SLUG --file FEED.json [--concurrency N]   (a JSON array of listings in the create shape, each with internal_ref; N items at once, ${IMPORT_CONCURRENCY_DEFAULT} by default, items of one internal_ref one after the other in feed order; throttled items are retried, failures listed per item; re-running the same feed resumes it: imported items are skipped by internal_ref)`,
  'listing migrate':
    '--tenant SLUG   (lays out listings stored before the item bounds: long translations in their own items, the last 20 price changes; moves listings archived before into the archived list; rerunnable)',
  'listing show': '--tenant SLUG --id PROPERTY_ID',
  'photos render':
    '--tenant SLUG | --all   (makes the renditions of the photos stored before renditions existed, listing by listing, and stops serving their originals; rerunnable: a photo with renditions is skipped; deployed: PHOTO_BUCKET, PHOTO_BASE_URL, PHOTO_DISTRIBUTION_ID)',
  'catalogue rebuild':
    "--tenant SLUG   (rewrites the Tenant's catalogue snapshot from every listing in the table; deployed: CATALOGUE_BUCKET)",
  'theme set':
    '--tenant SLUG --file theme.json   ({colors: {primary, accent, background, text}, fonts: {heading, body}, corner_style, logo_url, show_powered_by})',
  'email list': '--tenant SLUG   (the local outbox: what the local stack would have emailed)',
  'place create': '--code CODE --name NAME [--parent CODE] [--kind KIND]',
  'place import': '--file FILE.json   (a JSON array of {code, name, parent?, kind?})',
};

/** The whole usage: every command's line. */
export function usage(): string {
  return [
    'Usage: npm run -s admin -- <command> [--flag value ...]',
    '',
    ...Object.entries(COMMAND_USAGE).map(([name, line]) => `  ${name} ${line}`),
    '',
    'Targets the local stack running on DATA_DIR (default .data/), or a deployed table when TABLE_NAME is set.',
    '',
  ].join('\n');
}

/** The flags a command accepts (every `--name` its usage line shows), `--help` included. */
export function flagsOf(command: string): Set<string> {
  const line = COMMAND_USAGE[command] ?? '';
  return new Set(['help', ...[...line.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1] as string)]);
}
