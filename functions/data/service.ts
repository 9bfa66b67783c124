import { Service } from 'electrodb';
import { Activity } from './entities/activity.ts';
import { Agent } from './entities/agent.ts';
import { AiCharge } from './entities/ai-charge.ts';
import { AiSpend } from './entities/ai-spend.ts';
import { ApiKey } from './entities/api-key.ts';
import { Inquiry } from './entities/inquiry.ts';
import { Lead } from './entities/lead.ts';
import { LeadSearchToken, LegacyLeadSearchToken } from './entities/lead-search-token.ts';
import { Listing } from './entities/listing.ts';
import { ListingText } from './entities/listing-text.ts';
import { Tenant } from './entities/tenant.ts';
import { UniqueClaim } from './entities/unique-claim.ts';

/*
 * The ElectroDB Services whose transactions write a record together with what must agree with it
 * (its uniqueness claims; a Lead's search tokens and its Inquiry or Activity): one per kind of
 * transaction, each built on first use. Joining an entity to a Service makes ElectroDB check it
 * against its model schema and build it (the entities are lazy, see entities/common.ts), so one
 * Service of every entity cost each writing function all the models at its first request; now a
 * function builds the few its own transaction names.
 */

const buildLeadWrites = () =>
  new Service({
    UniqueClaim,
    Lead,
    LeadSearchToken,
    LegacyLeadSearchToken,
    Inquiry,
    Activity,
    AiCharge,
    AiSpend,
  });
let leadService: ReturnType<typeof buildLeadWrites> | undefined;

/**
 * A Lead's writes: the Lead, its email/phone claims, search tokens, and an Inquiry or Activity; for
 * a score, the AI run's receipt and spend (one run is written and charged once).
 */
export function leadWrites(): ReturnType<typeof buildLeadWrites> {
  leadService ??= buildLeadWrites();
  return leadService;
}

const buildListingWrites = () => new Service({ UniqueClaim, Listing, ListingText });
let listingService: ReturnType<typeof buildListingWrites> | undefined;

/** A listing's writes: the listing, the claims on its slug and internal_ref, its texts kept apart. */
export function listingWrites(): ReturnType<typeof buildListingWrites> {
  listingService ??= buildListingWrites();
  return listingService;
}

const buildTenantWrites = () => new Service({ Tenant, UniqueClaim });
let tenantService: ReturnType<typeof buildTenantWrites> | undefined;

/** A new Tenant and the claim on its slug. */
export function tenantWrites(): ReturnType<typeof buildTenantWrites> {
  tenantService ??= buildTenantWrites();
  return tenantService;
}

const buildApiKeyWrites = () => new Service({ ApiKey, UniqueClaim });
let apiKeyService: ReturnType<typeof buildApiKeyWrites> | undefined;

/** A new API key and the claim that finds its hash by its id. */
export function apiKeyWrites(): ReturnType<typeof buildApiKeyWrites> {
  apiKeyService ??= buildApiKeyWrites();
  return apiKeyService;
}

const buildAgentWrites = () => new Service({ UniqueClaim, Agent });
let agentService: ReturnType<typeof buildAgentWrites> | undefined;

/** A new Agent and the claims on its email and slug. */
export function agentWrites(): ReturnType<typeof buildAgentWrites> {
  agentService ??= buildAgentWrites();
  return agentService;
}
