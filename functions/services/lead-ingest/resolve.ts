import type { LeadIngestInput } from '../../contract/leads.ts';
import { type AgentRecord, findAgentByEmail, getAgent } from '../../data/agents.ts';
import { findListingClaim, getListing, type ListingRecord } from '../../data/listings.ts';
import { type IngestWarning, normalizeEmail } from '../../domain/leads.ts';

/**
 * The listing an event names: property_id, else property_ref (a slug, retired ones included, or an
 * internal_ref). What cannot be honoured becomes a warning, never a refusal.
 */
export async function resolveListing(
  tenantId: string,
  input: Pick<LeadIngestInput, 'property_id' | 'property_ref'>,
  warnings: IngestWarning[],
): Promise<ListingRecord | undefined> {
  const ref = input.property_ref ?? undefined;
  if (input.property_id) {
    const property = await getListing(tenantId, input.property_id);
    if (!property) {
      warnings.push({
        code: 'property_not_found',
        detail: `No listing with id ${input.property_id} in this tenant; the event was recorded without a listing`,
      });
      return undefined;
    }
    if (ref) {
      const ids = await refMatches(tenantId, ref);
      if (ids.length > 0 && !ids.includes(property.id)) {
        warnings.push({
          code: 'property_ref_ambiguous',
          detail: `property_ref "${ref}" names another listing than property_id; property_id was used`,
        });
      }
    }
    return property;
  }
  if (!ref) return undefined;
  const ids = await refMatches(tenantId, ref);
  if (ids.length > 1) {
    warnings.push({
      code: 'property_ref_ambiguous',
      detail: `property_ref "${ref}" is the slug of one listing and the internal_ref of another; the event was recorded without a listing`,
    });
    return undefined;
  }
  const property = ids[0] ? await getListing(tenantId, ids[0]) : undefined;
  if (!property) {
    warnings.push({
      code: 'property_ref_unmatched',
      detail: `No listing has the slug or internal_ref "${ref}"; the event was recorded without a listing`,
    });
  }
  return property;
}

/** The distinct listings a reference names: by slug (lowercased; retired slugs too) and by internal_ref. */
async function refMatches(tenantId: string, ref: string): Promise<string[]> {
  const [bySlug, byRef] = await Promise.all([
    findListingClaim(tenantId, 'property-slug', ref.toLowerCase()),
    findListingClaim(tenantId, 'property-ref', ref),
  ]);
  return [...new Set([bySlug?.ownerId, byRef?.ownerId].filter((id): id is string => id !== undefined))];
}

/** The Agent an event names (agent_id or agent_email; the schema refuses both); unknown → warning. */
export async function resolveNamedAgent(
  tenantId: string,
  input: Pick<LeadIngestInput, 'agent_id' | 'agent_email'>,
  warnings: IngestWarning[],
): Promise<AgentRecord | undefined> {
  if (input.agent_id) {
    const agent = await getAgent(tenantId, input.agent_id);
    if (!agent) {
      warnings.push({
        code: 'agent_unmatched',
        detail: `No Agent with id ${input.agent_id} in this tenant; the owner rule applied without it`,
      });
    }
    return agent;
  }
  if (input.agent_email) {
    const agent = await findAgentByEmail(tenantId, normalizeEmail(input.agent_email));
    if (!agent) {
      warnings.push({
        code: 'agent_unmatched',
        detail: `No Agent with email ${input.agent_email} in this tenant; the owner rule applied without it`,
      });
    }
    return agent;
  }
  return undefined;
}
