import type { ApiKeyRecord } from '../data/api-keys.ts';
import type { TenantRecord } from '../data/tenants.ts';

/** Who is calling: the verified key and its Tenant, as the middleware established them. */
export interface Caller {
  tenant: TenantRecord;
  apiKey: Pick<ApiKeyRecord, 'id' | 'name' | 'scopes' | 'tenantId'>;
}
