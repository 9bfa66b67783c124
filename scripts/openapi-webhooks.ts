/**
 * The webhook deliveries of interface §6 as OpenAPI 3.1 `webhooks`: one entry per event type, whose
 * request body is the §6.1 envelope with that type's `data` (the resource as its GET answers it, the
 * very zod schema the API answers with, plus the type's extras), and the Standard Webhooks headers.
 */
import * as z from 'zod/mini';
import { ActivityOut } from '../functions/contract/activities.ts';
import { EventOut } from '../functions/contract/events.ts';
import { InquiryOut } from '../functions/contract/inquiries.ts';
import { LeadOut } from '../functions/contract/leads.ts';
import { PropertyOut } from '../functions/contract/properties.ts';
import { EVENT_TYPES, type EventType, kindOf, type SubjectKind } from '../functions/domain/events.ts';
import { LEAD_STATUSES } from '../functions/domain/leads.ts';
import { PING_EVENT_TYPE } from '../functions/domain/webhooks.ts';

type JsonSchema = Record<string, unknown>;
type ToJson = (s: z.ZodMiniType) => JsonSchema;

/** The resource each kind of event carries, documented once under components.schemas. */
const RESOURCES: Record<SubjectKind, { name: string; schema: z.ZodMiniType }> = {
  lead: { name: 'Lead', schema: LeadOut },
  inquiry: { name: 'Inquiry', schema: InquiryOut },
  activity: { name: 'Activity', schema: ActivityOut },
  property: { name: 'Property', schema: PropertyOut },
};

const ChangedFields = z
  .array(z.string())
  .check(z.describe('The public fields whose value changed (images for a gallery change)'));

/** What each event type adds to its resource in `data` (§6.2 "Data extras"). */
const EXTRAS: Partial<Record<EventType, Record<string, z.ZodMiniType>>> = {
  'lead.updated': { changed_fields: ChangedFields },
  'lead.status_changed': { previous_status: z.enum(LEAD_STATUSES) },
  'lead.assigned': {
    previous_assigned_agent_id: z.nullable(z.string()).check(z.describe('null: it was Unassigned')),
  },
  'inquiry.created': {
    lead: z.nullable(LeadOut).check(z.describe('The Lead that got in touch, as GET /v1/leads/{lead_id}')),
  },
  'property.updated': { changed_fields: ChangedFields },
  'property.price_changed': {
    previous_price: z.nullable(z.string()),
    previous_currency: z.nullable(z.string()),
    previous_rent_price: z.nullable(z.string()),
  },
};

/** When each event is sent (§6.2). */
const WHEN: Record<EventType | typeof PING_EVENT_TYPE, string> = {
  'lead.created': 'A Lead is created by any path',
  'lead.updated': 'Contact or pipeline fields of a Lead change',
  'lead.status_changed': "A Lead's status changes",
  'lead.assigned': 'A Lead gets a new Lead Owner',
  'lead.scored': 'AI scored (or rescored) a Lead',
  'lead.archived': 'A Lead is archived',
  'inquiry.created': 'A Lead got in touch',
  'activity.completed': 'An Activity is marked done',
  'property.created': 'A listing is created from the console, an import or a key',
  'property.updated': 'A listing changes, including an image import finishing',
  'property.went_live': 'A listing came onto the website',
  'property.price_changed': "A listing's price changes",
  'property.archived': 'A listing is archived',
  ping: 'A test from the console or POST /v1/webhooks/{endpoint_id}/test (never subscribed to)',
};

const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event id: the same on every retry and redelivery, so a receiver handles it once',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    description: 'Unix seconds of this attempt; refuse one more than 300 seconds from your clock',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    description:
      'Space-separated candidates `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{raw body}`, ' +
      'keyed with the base64-decoded part of the endpoint secret after `whsec_` (Standard Webhooks)',
    schema: { type: 'string' },
  },
];

function envelope(type: string, data: JsonSchema, toJson: ToJson): JsonSchema {
  const base = toJson(EventOut) as { properties: Record<string, unknown>; required?: string[] };
  return {
    ...base,
    properties: { ...base.properties, type: { type: 'string', const: type }, data },
  };
}

function dataOf(type: EventType, toJson: ToJson): JsonSchema {
  const ref = { $ref: `#/components/schemas/${RESOURCES[kindOf(type)].name}` };
  const extras = EXTRAS[type];
  if (!extras) return ref;
  return { allOf: [ref, toJson(z.object(extras))] };
}

/**
 * The document's `webhooks` (one POST per event type, `ping` included) and the resource schemas
 * they refer to, to be merged into components.schemas.
 */
export function webhooksDocument(toJson: ToJson): {
  webhooks: Record<string, unknown>;
  schemas: Record<string, JsonSchema>;
} {
  const types = [...EVENT_TYPES, PING_EVENT_TYPE] as const;
  const webhooks = Object.fromEntries(
    types.map((type) => {
      const data =
        type === PING_EVENT_TYPE
          ? toJson(z.object({ endpoint_id: z.string().check(z.describe('The endpoint tested')) }))
          : dataOf(type, toJson);
      return [
        type,
        {
          post: {
            operationId: `webhook_${type.replace('.', '_')}`,
            summary: `${type}: ${WHEN[type]}`,
            description:
              'Sent to every enabled endpoint subscribed to this type, as an HTTPS POST. Verify the ' +
              'signature against the raw body before parsing it. Any 2xx within 10 seconds is a success; ' +
              'anything else is retried after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h and 24 h. ' +
              'Events can arrive out of order: order them by created_at or the resource’s fields.',
            tags: ['Webhook events'],
            security: [],
            parameters: DELIVERY_HEADERS.map((h) => ({ ...h, in: 'header', required: true })),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: envelope(type, data, toJson) } },
            },
            responses: {
              '200': { description: 'Received (any 2xx is a success)' },
              '410': { description: 'Gone: the endpoint is disabled at once and nothing more is sent' },
            },
          },
        },
      ];
    }),
  );
  const schemas = Object.fromEntries(
    Object.values(RESOURCES).map(({ name, schema }) => [name, toJson(schema)]),
  );
  return { webhooks, schemas };
}
