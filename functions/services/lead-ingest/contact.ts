import type { TenantRecord } from '../../data/tenants.ts';
import type { Contact } from '../../domain/lead-contact.ts';
import { normalizeEmail, normalizePhone } from '../../domain/leads.ts';
import { RequestValidationError } from '../../kernel/errors.ts';

/** A person as a client sent them (the ingest `person`, a manual add's body). */
export interface RawContact {
  name: string;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  locale?: string | null | undefined;
  notes?: string | null | undefined;
}

/**
 * Normalises what a client sent: email trimmed and lowercased; phone to E.164 with the Tenant's
 * default country. A phone that cannot be a number → 422 at `phoneLoc`.
 */
export function contactOf(tenant: TenantRecord, raw: RawContact, phoneLoc: (string | number)[]): Contact {
  let phone: string | undefined;
  if (raw.phone) {
    phone = normalizePhone(raw.phone, tenant.defaultCountry);
    if (!phone) {
      throw RequestValidationError.single(
        phoneLoc,
        `Not a phone number we can read; send it in international form (+34 600 123 456) or as a national number of ${tenant.defaultCountry}`,
        'phone_invalid',
      );
    }
  }
  return {
    name: raw.name,
    email: raw.email ? normalizeEmail(raw.email) : undefined,
    phone,
    locale: raw.locale ?? undefined,
    notes: raw.notes ?? undefined,
  };
}
