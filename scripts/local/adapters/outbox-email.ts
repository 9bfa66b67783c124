import { randomUUID } from 'node:crypto';
import { OutboxEmail } from '../../../functions/data/entities/outbox-email.ts';
import type { Email, EmailPort } from '../../../functions/kernel/ports/email.ts';

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
