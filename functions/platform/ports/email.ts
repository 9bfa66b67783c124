import { randomUUID } from 'node:crypto';
import { OutboxEmail } from '../../data/entities/outbox-email.ts';
import { type CredentialSource, callAws, defaultCredentials } from '../aws/aws-http.ts';
import { config } from '../config.ts';

export interface Email {
  tenantId: string;
  to: string;
  subject: string;
  text: string;
}

export interface EmailPort {
  send(email: Email): Promise<void>;
}

/**
 * Amazon SES (v2 API, SendEmail) in AWS, from the verified EMAIL_FROM address. `endpoint` and
 * `credentials` are for tests; the regional endpoint and the default chain are used otherwise.
 */
export class SesEmail implements EmailPort {
  readonly #from: string;
  readonly #endpoint: string | undefined;
  readonly #credentials: CredentialSource;
  constructor(from: string, options: { endpoint?: string; credentials?: CredentialSource } = {}) {
    this.#from = from;
    this.#endpoint = options.endpoint;
    this.#credentials = options.credentials ?? defaultCredentials();
  }
  async send(email: Email): Promise<void> {
    const region = config().AWS_REGION;
    await callAws({
      service: 'ses',
      region,
      endpoint: this.#endpoint ?? `https://email.${region}.amazonaws.com`,
      path: '/v2/email/outbound-emails',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
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
      credentials: this.#credentials,
    });
  }
}

/** The local stack's outbox: nothing leaves the machine; `admin email list` reads it. */
export class OutboxEmailPort implements EmailPort {
  async send(email: Email): Promise<void> {
    await OutboxEmail.create({ ...email, id: randomUUID(), createdAt: new Date().toISOString() }).go();
  }
}

/** The outbox of a Tenant, oldest first (local stack only). */
export async function listOutbox(tenantId: string) {
  const { data } = await OutboxEmail.query.byTenant({ tenantId }).go({ pages: 'all' });
  return data.map((m) => ({ to: m.to, subject: m.subject, text: m.text, created_at: m.createdAt }));
}

let port: EmailPort | undefined;

/** SES when EMAIL_FROM is configured (AWS), the local outbox otherwise. */
export function emails(): EmailPort {
  const from = config().EMAIL_FROM;
  port ??= from ? new SesEmail(from) : new OutboxEmailPort();
  return port;
}

/** Tests swap the adapter. */
export function setEmails(next: EmailPort | undefined): void {
  port = next;
}
