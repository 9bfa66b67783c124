import { config } from '../config.ts';
import { definePort, required } from './port.ts';
import { clientDefaults, lazyClient } from './sdk-client.ts';

export interface Email {
  tenantId: string;
  to: string;
  subject: string;
  text: string;
}

export interface EmailPort {
  send(email: Email): Promise<void>;
}

const sesv2 = lazyClient(
  () => import('@aws-sdk/client-sesv2'),
  ({ SESv2Client }) => new SESv2Client(clientDefaults()),
);

/** Amazon SES (v2 API, SendEmail) from the verified sender address, tagged with the Tenant. */
export class SesEmail implements EmailPort {
  readonly #from: string;
  constructor(from: string) {
    this.#from = from;
  }
  async send(email: Email): Promise<void> {
    const [{ SendEmailCommand }, client] = await sesv2();
    await client.send(
      new SendEmailCommand({
        FromEmailAddress: this.#from,
        Destination: { ToAddresses: [email.to] },
        // Without a charset SES reads the text as 7-bit ASCII, garbling names such as "Núñez".
        Content: {
          Simple: {
            Subject: { Data: email.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: email.text, Charset: 'UTF-8' } },
          },
        },
        EmailTags: [{ Name: 'tenant', Value: email.tenantId }],
      }),
    );
  }
}

/**
 * SES (v2) errors that no retry of the same email can fix: the message or a recipient refused
 * (`MessageRejected`, which is also the sandbox's answer for an unverified recipient), sending
 * paused or the account suspended, the sender's domain not verified, a bad request. A caller parks
 * such an email instead of failing its work over and over; throttling and outages stay retryable.
 */
const PERMANENT_EMAIL_FAILURES: ReadonlySet<string> = new Set([
  'MessageRejected',
  'SendingPausedException',
  'AccountSuspendedException',
  'MailFromDomainNotVerifiedException',
  'NotFoundException',
  'BadRequestException',
]);

export function isPermanentEmailFailure(error: unknown): boolean {
  return PERMANENT_EMAIL_FAILURES.has((error as { name?: string } | undefined)?.name ?? '');
}

/**
 * What a log line may say of an email error: SES's error code (`MessageRejected`, …). Never its
 * message: SES names the refused identities (the recipient's address) there.
 */
export function emailErrorName(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && /^[A-Za-z0-9_.-]{1,100}$/.test(name) ? name : 'Error';
}

const port = definePort<EmailPort>('email');

/** The bound email adapter: SES in Lambda, the outbox locally, a test's recorder. */
export function emails(): EmailPort {
  return port.get();
}

/** Binds SES (the Lambda entry of a row that `uses` email); EMAIL_FROM is required on first use. */
export function bindAwsAdapter(): void {
  port.bindAws(() => new SesEmail(required(config().EMAIL_FROM, 'EMAIL_FROM', 'email')));
}

/** Binds an email adapter: the local stack's outbox, or a test's recorder. */
export function setEmails(next: EmailPort | undefined): void {
  port.bind(next);
}
