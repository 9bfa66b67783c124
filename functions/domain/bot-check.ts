import { hostnameAllowed } from './origins.ts';

/**
 * The `action` the site's Inquiry form gives its Turnstile widget (`turnstile.render(el, {action:
 * 'inquiry'})`): a token solved for another action of the same site (a login, a newsletter) is refused.
 */
export const INQUIRY_TURNSTILE_ACTION = 'inquiry';

/** What Cloudflare's siteverify said of a token, reduced to what admission checks. */
export interface BotCheckOutcome {
  success: boolean;
  /** The host the token was solved on; none for the local dummy token. */
  hostname?: string | undefined;
  /** The widget's action; none (or empty) for a widget rendered without one. */
  action?: string | undefined;
}

/**
 * Why a verified Turnstile answer does not admit an Inquiry, or undefined: the token must be valid,
 * solved on a host of the key's allowed origins, and for the Inquiry form's action (a widget without
 * an action is accepted, as pages made before the action existed render one).
 */
export function botCheckRefusal(outcome: BotCheckOutcome, origins: readonly string[]): string | undefined {
  if (!outcome.success) return 'The bot check failed: send the Turnstile token of the form';
  if (outcome.hostname !== undefined && !hostnameAllowed(origins, outcome.hostname)) {
    return 'The bot check was solved on a host this key does not allow';
  }
  if (outcome.action && outcome.action !== INQUIRY_TURNSTILE_ACTION) {
    return `The bot check was solved for another form: its action must be "${INQUIRY_TURNSTILE_ACTION}"`;
  }
  return undefined;
}
