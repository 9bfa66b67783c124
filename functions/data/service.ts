import { Service } from 'electrodb';
import { Activity } from './entities/activity.ts';
import { Agent } from './entities/agent.ts';
import { ApiKey } from './entities/api-key.ts';
import { Inquiry } from './entities/inquiry.ts';
import { Lead } from './entities/lead.ts';
import { LeadSearchToken } from './entities/lead-search-token.ts';
import { Property } from './entities/property.ts';
import { Tenant } from './entities/tenant.ts';
import { UniqueClaim } from './entities/unique-claim.ts';

function build() {
  return new Service({
    Tenant,
    UniqueClaim,
    Agent,
    ApiKey,
    Property,
    Lead,
    LeadSearchToken,
    Inquiry,
    Activity,
  });
}

let service: ReturnType<typeof build> | undefined;

/**
 * Entities that take part in transactions together (a record plus its uniqueness claims). Built on
 * first use: ElectroDB re-parses every entity model to build a Service, work that read-only
 * functions never need at cold start.
 */
export function db(): ReturnType<typeof build> {
  service ??= build();
  return service;
}
