import { randomUUID } from 'node:crypto';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { OutboxEmail } from '../../data/entities/outbox-email.ts';
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
 * Amazon SES (v2) in AWS, from the verified EMAIL_FROM address. The SES client is loaded on the first
 * send: functions that may email (a Lead Owner on an auto-assignment) often do not.
 */
export class SesEmail implements EmailPort {
  #client:
    | Promise<{
        client: SESv2Client;
        SendEmailCommand: typeof import('@aws-sdk/client-sesv2').SendEmailCommand;
      }>
    | undefined;
  readonly #from: string;
  constructor(from: string) {
    this.#from = from;
  }
  async send(email: Email): Promise<void> {
    this.#client ??= import('@aws-sdk/client-sesv2').then((ses) => ({
      client: new ses.SESv2Client({}),
      SendEmailCommand: ses.SendEmailCommand,
    }));
    const { client, SendEmailCommand } = await this.#client;
    await client.send(
      new SendEmailCommand({
        FromEmailAddress: this.#from,
        Destination: { ToAddresses: [email.to] },
        Content: { Simple: { Subject: { Data: email.subject }, Body: { Text: { Data: email.text } } } },
        EmailTags: [{ Name: 'tenant', Value: email.tenantId }],
      }),
    );
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
