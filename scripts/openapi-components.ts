/**
 * The named schemas of docs/openapi.json (components.schemas): which zod schema of the contract each
 * name stands for, and the conversion that documents every body through them. A generator for Java,
 * Go, C# or TypeScript makes one model per component under these names, so a Lead is `Lead` wherever
 * it appears (a GET, a page, an event) instead of one anonymous class per path.
 *
 * The names live here, not on the schemas (`.meta({ id })`), so that the handlers' schemas and every
 * test that converts them stay as they are: the conversion looks names up in a registry of its own
 * that adds an `id` to the metadata zod already holds (descriptions, formats). zod then extracts each
 * named schema met inside a body into `$defs`, which {@link ComponentSet} hoists into the components.
 */
import * as z from 'zod/mini';
import {
  ActivityCreate,
  ActivityOut,
  ActivityUpdate,
  ActivityUpdateAnswer,
  ActivityUpdateReceipt,
} from '../functions/contract/activities.ts';
import { AgentOut } from '../functions/contract/agents.ts';
import { ErrorOut, InternalErrorOut, ValidationErrorOut } from '../functions/contract/errors.ts';
import { EventOut } from '../functions/contract/events.ts';
import { InquiryOut } from '../functions/contract/inquiries.ts';
import {
  AreaRefOut,
  LeadCriteriaIn,
  LeadCriteriaOut,
  LeadMatchList,
  LeadMatchOut,
  MatchSendIn,
  MatchSendOut,
  PlaceHitOut,
} from '../functions/contract/lead-criteria.ts';
import {
  LeadPropertyCreate,
  LeadPropertyList,
  LeadPropertyOut,
} from '../functions/contract/lead-properties.ts';
import {
  IngestPersonIn,
  IngestWarningOut,
  LeadCreateAnswer,
  LeadCreateReceipt,
  LeadIngestIn,
  LeadIngestOut,
  LeadManualCreate,
  LeadOut,
  LeadUpdate,
  LeadUpdateAnswer,
  LeadUpdateReceipt,
} from '../functions/contract/leads.ts';
import { PathEntryOut, PlaceOut } from '../functions/contract/places.ts';
import {
  ListingAreaOut,
  ListingPlaceOut,
  PropertyCreate,
  PropertyOut,
  PropertyUpdate,
} from '../functions/contract/properties.ts';
import {
  ImageConfirmIn,
  ImageImportIn,
  ImageImportOut,
  ImageOut,
  ImagePatchIn,
  ImageUploadIn,
  ImageUploadOut,
  RenditionOut,
} from '../functions/contract/property-images.ts';
import { pageOf } from '../functions/contract/shared.ts';
import {
  SiteAgentList,
  SiteAgentOut,
  SiteAmenityList,
  SiteAmenityOut,
  SiteLeadCreate,
  SiteLeadOut,
  SiteListingAvailableOut,
  SiteListingByIdOut,
  SiteListingBySlugOut,
  SiteListingOut,
  SiteListingPage,
  SiteListingUnavailableOut,
  SiteLocationList,
  SiteLocationOut,
  SitePlaceOut,
} from '../functions/contract/site.ts';
import { ThemeOut } from '../functions/contract/theme.ts';
import {
  AttemptOut,
  DeliveryOut,
  EndpointOut,
  EndpointPatchIn,
  EndpointWithSecretOut,
  RecoverIn,
  RecoverOut,
  SecretOut,
  SubscriptionIn,
} from '../functions/contract/webhooks.ts';
import { AreaOut } from '../functions/http/areas/list-areas.ts';

type JsonSchema = Record<string, unknown>;

/**
 * Every resource, page envelope, answer and request body of the interface, by the name the document
 * gives it: the interface's own name where it has one (LeadIngestIn, LeadCriteriaIn, ActivityCreate,
 * PathEntryOut…), the resource's name otherwise (Lead, Property, Area…). The events are named in
 * scripts/openapi-webhooks.ts.
 */
export const NAMED_SCHEMAS: Record<string, z.ZodMiniType> = {
  // Errors every operation shares.
  Error: ErrorOut,
  ValidationError: ValidationErrorOut,
  InternalError: InternalErrorOut,
  // Listings and their photos.
  Property: PropertyOut,
  PropertyPage: pageOf(PropertyOut),
  PropertyCreate,
  PropertyUpdate,
  ListingPlaceOut,
  ListingArea: ListingAreaOut,
  Image: ImageOut,
  Rendition: RenditionOut,
  ImageImport: ImageImportOut,
  ImageImportIn,
  ImageUpload: ImageUploadOut,
  ImageUploadIn,
  ImageConfirmIn,
  ImagePatchIn,
  Place: PlaceOut,
  PlacePage: pageOf(PlaceOut),
  PathEntryOut,
  Area: AreaOut,
  AreaPage: pageOf(AreaOut),
  // Leads, Inquiries, Activities.
  Lead: LeadOut,
  LeadPage: pageOf(LeadOut),
  LeadManualCreate,
  LeadCreateReceipt,
  LeadCreateAnswer,
  LeadUpdate,
  LeadUpdateReceipt,
  LeadUpdateAnswer,
  LeadIngestIn,
  IngestPersonIn,
  LeadIngestOut,
  IngestWarning: IngestWarningOut,
  Inquiry: InquiryOut,
  InquiryPage: pageOf(InquiryOut),
  Activity: ActivityOut,
  ActivityPage: pageOf(ActivityOut),
  ActivityCreate,
  ActivityUpdate,
  ActivityUpdateReceipt,
  ActivityUpdateAnswer,
  LeadPropertyCreate,
  LeadPropertyOut,
  LeadPropertyList,
  LeadCriteria: LeadCriteriaOut,
  LeadCriteriaIn,
  PlaceHitOut,
  AreaRefOut,
  Match: LeadMatchOut,
  MatchList: LeadMatchList,
  MatchSendIn,
  MatchSendOut,
  Agent: AgentOut,
  AgentPage: pageOf(AgentOut),
  // The event log (the events themselves are named in scripts/openapi-webhooks.ts).
  EventPage: pageOf(EventOut),
  // Webhook management.
  WebhookEndpoint: EndpointOut,
  WebhookEndpointWithSecret: EndpointWithSecretOut,
  WebhookEndpointPage: pageOf(EndpointOut),
  WebhookSubscriptionIn: SubscriptionIn,
  WebhookEndpointPatchIn: EndpointPatchIn,
  WebhookSecret: SecretOut,
  WebhookDelivery: DeliveryOut,
  WebhookDeliveryAttempt: AttemptOut,
  WebhookDeliveryPage: pageOf(DeliveryOut),
  WebhookRecoverIn: RecoverIn,
  WebhookRecoverOut: RecoverOut,
  // The website's reads and writes (publishable key).
  SiteListing: SiteListingOut,
  SiteListingPage,
  SiteListingBySlug: SiteListingBySlugOut,
  SiteListingById: SiteListingByIdOut,
  SiteListingAvailable: SiteListingAvailableOut,
  SiteListingUnavailable: SiteListingUnavailableOut,
  SitePlace: SitePlaceOut,
  SiteAmenity: SiteAmenityOut,
  SiteAmenityList,
  SiteLocation: SiteLocationOut,
  SiteLocationList,
  SiteAgent: SiteAgentOut,
  SiteAgentList,
  SiteLeadCreate,
  SiteLeadOut,
  Theme: ThemeOut,
};

/**
 * zod's metadata (the global registry: descriptions, formats, patterns) plus the `id` of each named
 * schema. toJSONSchema reads metadata only through `get`, and treats a schema with an `id` as a
 * definition of its own.
 */
class NamedRegistry extends z.core.$ZodRegistry<Record<string, unknown>> {
  readonly names = new Map<z.core.$ZodType, string>();

  override get<S extends z.core.$ZodType>(schema: S): Record<string, unknown> | undefined {
    const meta = z.globalRegistry.get(schema) as Record<string, unknown> | undefined;
    const id = this.names.get(schema);
    return id === undefined ? meta : { ...meta, id };
  }
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * The document's one way of saying "or null": `anyOf: [X, {type: 'null'}]`, as zod writes it for a
 * nullable object, enum or reference. zod writes a nullable string or number as `type: [X, 'null']`
 * instead; this rewrites those, the constraints moving into the first branch.
 */
export function oneNullabilityStyle(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(oneNullabilityStyle);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === 'examples' || k === 'example' || k === 'const' || k === 'enum' || k === 'default'
        ? v
        : oneNullabilityStyle(v),
    ]),
  ) as JsonSchema;
  const type = node.type;
  if (!Array.isArray(type) || !type.includes('null')) return node;
  const others = type.filter((t) => t !== 'null');
  const annotations: JsonSchema = {};
  const constraints: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    (ANNOTATIONS.has(k) ? annotations : constraints)[k] = v;
  }
  return {
    anyOf: [{ type: others.length === 1 ? others[0] : others, ...constraints }, { type: 'null' }],
    ...annotations,
  };
}

/** `*_at` is a time throughout the interface (created_at, occurred_at, due_at…): an RFC 3339 date-time. */
function timesAreDateTimes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(timesAreDateTimes);
  if (schema === null || typeof schema !== 'object') return schema;
  const node = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, timesAreDateTimes(v)]),
  ) as JsonSchema;
  const properties = node.properties as Record<string, JsonSchema> | undefined;
  if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
    node.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [
        name,
        name.endsWith('_at') ? asDateTime(property) : property,
      ]),
    );
  }
  return node;
}

/** A string schema (or the string branch of a nullable one) with format date-time. */
function asDateTime(property: JsonSchema): JsonSchema {
  if (property.type === 'string') return { ...property, format: 'date-time' };
  if (Array.isArray(property.anyOf)) {
    return { ...property, anyOf: property.anyOf.map((branch: JsonSchema) => asDateTime(branch)) };
  }
  return property;
}

/** Everything the document says of a schema, written the one way ({@link oneNullabilityStyle}, times). */
export function documented(schema: unknown): JsonSchema {
  return timesAreDateTimes(oneNullabilityStyle(schema)) as JsonSchema;
}

function rewriteRefs(schema: unknown, uri: (name: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rewriteRefs(s, uri));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
        ? uri(v.slice('#/$defs/'.length))
        : rewriteRefs(v, uri),
    ]),
  );
}

export const componentRef = (name: string) => `#/components/schemas/${name}`;

/**
 * The components of one document being built: converts a zod schema (request `input`, answer
 * `output`) to the JSON Schema the document shows, every named schema inside it (or the schema
 * itself) as a `$ref` to its component. A name converted twice to different schemas (the input and
 * the output of a transform, say) is a mistake of the table and throws: one name, one shape.
 */
export class ComponentSet {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly registry = new NamedRegistry();
  /** Rewrites of a schema's JSON: the events' loose envelope documented as the precise union. */
  private readonly documentedAs = new Map<z.core.$ZodType, string>();

  constructor(named: Record<string, z.ZodMiniType> = NAMED_SCHEMAS) {
    this.name(named);
  }

  /** Adds names to the table (the events' schemas, made by scripts/openapi-webhooks.ts). */
  name(named: Record<string, z.ZodMiniType>): void {
    for (const [name, schema] of Object.entries(named)) {
      const already = this.registry.names.get(schema);
      if (already !== undefined && already !== name) {
        throw new Error(`One schema named twice: ${already} and ${name}`);
      }
      this.registry.names.set(schema, name);
    }
  }

  /** Documents every use of `schema` as a `$ref` to the component `name` (defined elsewhere). */
  documentAs(schema: z.ZodMiniType, name: string): void {
    this.documentedAs.set(schema, name);
  }

  /** `schema` as the document shows it, its named parts (or itself) hoisted into the components. */
  convert(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      metadata: this.registry,
      override: ({ zodSchema, jsonSchema }) => {
        const name = this.documentedAs.get(zodSchema);
        if (name === undefined) return;
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as JsonSchema)[key];
        (jsonSchema as JsonSchema).$ref = componentRef(name);
      },
    }) as JsonSchema;
    const { $schema: _dialect, $defs, ...root } = json;
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
      this.define(name, documented(rewriteRefs(definition, componentRef)));
    }
    return documented(rewriteRefs(root, componentRef));
  }

  /** Defines component `name` (a second definition must be the same schema). */
  define(name: string, schema: JsonSchema): void {
    const existing = this.schemas[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new Error(
        `Component ${name} has two shapes (a request and an answer, or two zod schemas): name them apart`,
      );
    }
    this.schemas[name] = schema;
  }

  /** The components in name order. */
  sorted(): Record<string, JsonSchema> {
    return Object.fromEntries(Object.entries(this.schemas).sort(([a], [b]) => a.localeCompare(b)));
  }
}
