/**
 * The webhook deliveries (docs/events-and-webhooks.md) as OpenAPI 3.1 `webhooks`: one entry per
 * event type, whose request body is that type's event (a named component: the envelope every event
 * shares, `type` fixed and `data` the resource as its GET answers it, plus the type's extras), and
 * the Standard Webhooks headers. `Event` is the union of every type but `ping`, told apart by `type`:
 * what GET /v1/events and GET /v1/events/{event_id} answer.
 *
 * Each event's `data` is one closed object: the resource's own fields and the type's extras side by
 * side (built with zod's `extend`), never `allOf` of the closed resource and the closed extras, which
 * no payload can satisfy (each branch refuses the other's fields).
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
import { type ComponentSet, componentRef } from './openapi-components.ts';

type JsonSchema = Record<string, unknown>;
type WebhookType = EventType | typeof PING_EVENT_TYPE;

/** The resource each kind of event carries (a component of scripts/openapi-components.ts). */
const RESOURCES: Record<SubjectKind, z.ZodMiniObject> = {
  lead: LeadOut,
  inquiry: InquiryOut,
  activity: ActivityOut,
  property: PropertyOut,
};

const ChangedFields = z
  .array(z.string())
  .check(z.describe('The public fields whose value changed (images for a gallery change)'));

/** What each event type adds to its resource in `data`. */
const EXTRAS: Partial<Record<EventType, Record<string, z.ZodMiniType>>> = {
  'lead.updated': { changed_fields: ChangedFields },
  'lead.status_changed': { previous_status: z.enum(LEAD_STATUSES) },
  'lead.assigned': {
    previous_assigned_agent_id: z
      .nullable(z.string().check(z.meta({ format: 'uuid' })))
      .check(z.describe('null: it was Unassigned')),
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

/** When each event is sent. */
export const WHEN: Record<WebhookType, string> = {
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

/** `lead.status_changed` → `LeadStatusChanged`: the stem of the type's component names. */
export function pascalOf(type: WebhookType): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** The component name of the event of `type` (`LeadStatusChangedEvent`). */
export const eventComponentName = (type: WebhookType) => `${pascalOf(type)}Event`;

function dataOf(type: EventType): { data: z.ZodMiniType; named?: [string, z.ZodMiniType] } {
  const resource = RESOURCES[kindOf(type)];
  const extras = EXTRAS[type];
  if (!extras) return { data: resource };
  // One closed object: the resource's fields and the extras (see the file's comment).
  const data = z
    .extend(resource, extras)
    .check(z.describe(`The ${kindOf(type)} as its GET answers it, and what ${type} adds to it`));
  return { data, named: [`${pascalOf(type)}Data`, data] };
}

/** The envelope every event shares, with `type` fixed and `data` as given (a named schema stays a `$ref`). */
function envelopeOf(type: WebhookType, data: z.ZodMiniType) {
  return z
    .object({ ...EventOut.shape, type: z.literal(type), data })
    .check(z.describe(`${type}: ${WHEN[type]}`));
}

const PingData = z
  .object({ endpoint_id: z.string().check(z.meta({ format: 'uuid' }), z.describe('The endpoint tested')) })
  .check(z.describe('What a ping carries: the endpoint it tests'));

/** The zod schema of each event, by type (`ping` included), and every name they bring. */
export function eventSchemas(): {
  byType: Record<WebhookType, z.ZodMiniType>;
  named: Record<string, z.ZodMiniType>;
} {
  const named: Record<string, z.ZodMiniType> = { PingData };
  const byType = {} as Record<WebhookType, z.ZodMiniType>;
  for (const type of EVENT_TYPES) {
    const { data, named: dataName } = dataOf(type);
    if (dataName) named[dataName[0]] = dataName[1];
    byType[type] = envelopeOf(type, data);
    named[eventComponentName(type)] = byType[type];
  }
  byType[PING_EVENT_TYPE] = envelopeOf(PING_EVENT_TYPE, PingData);
  named[eventComponentName(PING_EVENT_TYPE)] = byType[PING_EVENT_TYPE];
  return { byType, named };
}

/**
 * Names the events in `components`, defines `Event` (every type but ping, discriminated by `type`),
 * documents the contract's loose envelope (EventOut, whose `data` is any object) as `Event`, and
 * returns the document's `webhooks` (one POST per event type, `ping` included).
 */
export function webhooksDocument(components: ComponentSet): Record<string, unknown> {
  const { byType, named } = eventSchemas();
  components.name(named);
  components.documentAs(EventOut, 'Event');
  for (const schema of Object.values(byType)) components.convert(schema, 'output');
  components.define('Event', {
    description:
      'An event of the log (GET /v1/events) and of webhook deliveries: the envelope of every type, its `data` told apart by `type`',
    oneOf: EVENT_TYPES.map((type) => ({ $ref: componentRef(eventComponentName(type)) })),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, componentRef(eventComponentName(type))])),
    },
  });
  const types = [...EVENT_TYPES, PING_EVENT_TYPE] as const;
  return Object.fromEntries(
    types.map((type) => [
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
            content: { 'application/json': { schema: { $ref: componentRef(eventComponentName(type)) } } },
          },
          responses: {
            '200': { description: 'Received (any 2xx is a success)' },
            '410': { description: 'Gone: the endpoint is disabled at once and nothing more is sent' },
          },
        },
      },
    ]),
  ) as Record<string, JsonSchema>;
}
