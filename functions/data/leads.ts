import type { EntityItem } from 'electrodb';
import { NotFoundError } from '../platform/errors.ts';
import { Lead } from './entities/lead.ts';

export type LeadRecord = EntityItem<typeof Lead>;

export async function getLead(tenantId: string, id: string): Promise<LeadRecord | undefined> {
  const { data } = await Lead.get({ tenantId, id }).go();
  return data ?? undefined;
}

/** The Lead, or 404 (another Tenant's Lead is simply not found). */
export async function requireLead(tenantId: string, id: string): Promise<LeadRecord> {
  const lead = await getLead(tenantId, id);
  if (!lead) throw new NotFoundError('No lead with this id');
  return lead;
}
