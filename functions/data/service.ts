import { Service } from 'electrodb';
import { Agent } from './entities/agent.ts';
import { ApiKey } from './entities/api-key.ts';
import { Property } from './entities/property.ts';
import { Tenant } from './entities/tenant.ts';
import { UniqueClaim } from './entities/unique-claim.ts';

/** Entities that take part in transactions together (a record plus its uniqueness claims). */
export const Db = new Service({ Tenant, UniqueClaim, Agent, ApiKey, Property });
