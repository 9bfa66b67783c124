/**
 * What the Owner of a Lead is told, and when (docs/leads-core.md, rule 2). No I/O here: the stream
 * reaction (functions/streams/reactions/owner-notification.ts) reads the Lead and sends the email.
 */

/** The Lead as a notice shows it. */
export interface NoticeLead {
  id: string;
  name: string;
  email?: string | undefined;
  phone?: string | undefined;
  locale?: string | undefined;
  notes?: string | undefined;
}

/** The Inquiry as a notice shows it. */
export interface NoticeInquiry {
  type: string;
  source?: string | undefined;
  campaign?: string | undefined;
  message?: string | undefined;
  occurredAt: string;
}

/** The listing an Inquiry asked about, as a notice shows it. */
export interface NoticeListing {
  title: string;
  internalRef?: string | undefined;
  slug: string;
}

export interface Notice {
  subject: string;
  text: string;
}

function contactLines(lead: NoticeLead): string[] {
  return [
    `Name: ${lead.name}`,
    `Email: ${lead.email ?? '(none)'}`,
    `Phone: ${lead.phone ?? '(none)'}`,
    ...(lead.locale ? [`Language: ${lead.locale}`] : []),
  ];
}

/** Tells the Owner a Lead got in touch: who, how to reach them, what they asked and about which listing. */
export function inquiryNotice(
  lead: NoticeLead,
  inquiry: NoticeInquiry,
  listing: NoticeListing | undefined,
): Notice {
  const what = inquiry.type === 'registration' ? 'registration' : 'inquiry';
  const about = listing ? ` about "${listing.title}"` : '';
  const text = [
    `${lead.name} got in touch (${what}${inquiry.source ? ` via ${inquiry.source}` : ''}).`,
    '',
    ...contactLines(lead),
    ...(listing
      ? [`Listing: ${listing.title} (${[listing.internalRef, listing.slug].filter(Boolean).join(', ')})`]
      : []),
    ...(inquiry.campaign ? [`Campaign: ${inquiry.campaign}`] : []),
    `When: ${inquiry.occurredAt}`,
    '',
    'Message:',
    inquiry.message?.trim() || '(no message)',
    '',
    `Lead id: ${lead.id}`,
  ].join('\n');
  return { subject: headerSafe(`New ${what} from ${lead.name}${about}`), text };
}

/** Tells an Agent the service made them the Owner of a Lead (round-robin or listing rule). */
export function assignmentNotice(lead: NoticeLead): Notice {
  const text = [
    `You are now the owner of the lead ${lead.name}.`,
    '',
    ...contactLines(lead),
    ...(lead.notes ? ['', 'Notes:', lead.notes] : []),
    '',
    `Lead id: ${lead.id}`,
  ].join('\n');
  return { subject: headerSafe(`New lead assigned to you: ${lead.name}`), text };
}

/**
 * Text that reaches an email subject or header, on one line: every control character (CR and LF
 * above all, which could start another header) becomes a space, runs of spaces one. Lead names,
 * listing titles and webhook URLs come from outside, so none may write a header of its own.
 */
export function headerSafe(text: string): string {
  return text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}
