/**
 * The deployed routes and the local server route the same paths to the same operations with the same
 * parameters. The deployed side is modelled from the route keys
 * (`routeKeyPaths`, which test/infra/api.test.ts checks against the synthesized routes) the way API
 * Gateway selects a route (literal segments before variables, a variable taking one whole segment),
 * followed by the function's own check (`operationParameters`); the local side is the local server's
 * own matcher and event. Every probe is derived from the route table.
 */
import { describe, expect, it } from 'vitest';
import { handler as redeliver } from '../../functions/http/webhooks/redeliver-webhook-delivery.ts';
import type { HttpEvent } from '../../functions/pipeline/http.ts';
import { operationParameters, type RouteDefinition, routeKeyPaths } from '../../functions/pipeline/route.ts';
import { routeFor, routes } from '../../functions/routes.ts';
import { httpEvent, lambdaContext } from '../../scripts/local/lambda-events.ts';
import { matchRoute, mountRoutes, toEvent } from '../../scripts/local/server.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const ID = '0b3f8a52-0ad8-4a4b-9d4e-1c2a5f0e9a11';

const table: readonly RouteDefinition[] = routes;
const keyPaths = routeKeyPaths(table);

/** Which operation answers, with which of its own parameters; `none` when no function runs or it answers 404 as unrouted. */
type Outcome = { operationId: string; parameters: Record<string, string | undefined> } | 'none';

function keyPathOf(route: RouteDefinition): string {
  return keyPaths.get(route.operationId) as string;
}

/** Whether an API Gateway route key path matches `pathname`: a variable takes one whole, non-empty segment. */
function keyMatches(keyPath: string, pathname: string): boolean {
  const keySegments = keyPath.split('/');
  const segments = pathname.split('/');
  return (
    keySegments.length === segments.length &&
    keySegments.every((key, i) => (/^\{\w+\}$/.test(key) ? segments[i] !== '' : key === segments[i]))
  );
}

/** Of two matching keys, the one with a literal where the other first has a variable. */
function moreSpecific(a: string, b: string): number {
  const [aSegments, bSegments] = [a.split('/'), b.split('/')];
  for (const [i, segment] of aSegments.entries()) {
    const aVariable = segment.startsWith('{');
    const bVariable = (bSegments[i] ?? '').startsWith('{');
    if (aVariable !== bVariable) return aVariable ? 1 : -1;
  }
  return 0;
}

/** The deployed answer: API Gateway selects a route key, then the function checks the path is its row's. */
function deployedOutcome(method: string, pathname: string): Outcome {
  const [route] = table
    .filter((r) => r.method === method && keyMatches(keyPathOf(r), pathname))
    .sort((a, b) => moreSpecific(keyPathOf(a), keyPathOf(b)));
  if (!route) return 'none';
  const segments = pathname.split('/');
  const handedOver = Object.fromEntries(
    keyPathOf(route)
      .split('/')
      .flatMap((key, i) => {
        const name = key.match(/^\{(\w+)\}$/)?.[1];
        return name ? [[name, decodeURIComponent(segments[i] ?? '')]] : [];
      }),
  );
  const parameters = operationParameters(route, `${method} ${keyPathOf(route)}`, handedOver);
  return parameters ? { operationId: route.operationId, parameters } : 'none';
}

const mounted = mountRoutes();

/** The local answer: the local server's matcher, then the event it builds and the same function check. */
function localOutcome(method: string, pathname: string): Outcome {
  const hit = matchRoute(mounted, method, pathname);
  if (!('mounted' in hit)) return 'none';
  const request = { headers: {}, socket: { remoteAddress: '127.0.0.1' }, httpVersion: '1.1' } as never;
  const event = toEvent(request, new URL(pathname, 'http://127.0.0.1'), Buffer.alloc(0), hit.mounted);
  const parameters = operationParameters(hit.mounted.route, event.routeKey, event.pathParameters ?? {});
  return parameters ? { operationId: hit.mounted.route.operationId, parameters } : 'none';
}

/**
 * Paths derived from a row: its own (a distinct value per variable), and near misses: a variable
 * without the literal text around it or with another action, a custom-method segment (`images:import`)
 * without its action or with another one.
 */
function probesOf(route: RouteDefinition): string[] {
  const segments = route.path.split('/');
  const variants = segments.map((segment, i): string[] => {
    const variable = segment.match(/^([^{}]*)\{\w+\}([^{}]*)$/);
    if (variable) {
      const [, before = '', after = ''] = variable;
      const value = `v${i}`;
      const own = `${before}${value}${after}`;
      return before || after ? [own, value, `${before}${value}:other`] : [own];
    }
    const action = segment.indexOf(':');
    return action > 0 ? [segment, segment.slice(0, action), `${segment.slice(0, action)}:other`] : [segment];
  });
  const own = variants.map((v) => v[0] as string);
  const probes = [own.join('/')];
  for (const [i, options] of variants.entries()) {
    for (const option of options.slice(1)) probes.push(own.with(i, option).join('/'));
  }
  return probes;
}

describe('route keys against the local router, for every row of the route table', () => {
  it('send every probe path and method to the same operation with the same parameters, or to none on both', () => {
    // Prepare
    const probes = [...new Set(table.flatMap(probesOf))];
    const differences: string[] = [];

    // Act
    for (const path of probes) {
      for (const method of METHODS) {
        const deployed = deployedOutcome(method, path);
        const local = localOutcome(method, path);
        if (JSON.stringify(deployed) !== JSON.stringify(local)) {
          differences.push(
            `${method} ${path}: deployed ${JSON.stringify(deployed)}, local ${JSON.stringify(local)}`,
          );
        }
      }
    }

    // Assess
    // The near misses are probed too: the bare delivery and the bare image-import collection.
    expect(probes).toContain('/v1/webhooks/v3/deliveries/v5');
    expect(probes).toContain('/v1/properties/v3/images');
    expect(differences).toEqual([]);
  });

  it('route each row to itself with its own parameter names', () => {
    for (const route of table) {
      // Prepare
      const [path] = probesOf(route);

      // Act
      const deployed = deployedOutcome(route.method, path as string);

      // Assess: probesOf gives the variable of segment i the value `v<i>`.
      const own = route.path.split('/').flatMap((segment, i) => {
        const name = segment.match(/\{(\w+)\}/)?.[1];
        return name ? [[name, `v${i}`]] : [];
      });
      expect(deployed).toEqual({ operationId: route.operationId, parameters: Object.fromEntries(own) });
    }
  });

  it('answer POST …/deliveries/{uuid} without :redeliver with no operation, deployed and local', () => {
    // Prepare
    const bare = `/v1/webhooks/${ID}/deliveries/${ID}`;

    // Act + Assess
    expect(deployedOutcome('POST', bare)).toBe('none');
    expect(localOutcome('POST', bare)).toBe('none');
    expect(deployedOutcome('POST', `${bare}:redeliver`)).toEqual({
      operationId: 'redeliverWebhookDelivery',
      parameters: { endpoint_id: ID, delivery_id: ID },
    });
  });
});

describe('route keys', () => {
  it('give sibling routes one variable name at each position under the same prefix', () => {
    // Prepare
    const namesByPrefix = new Map<string, Set<string>>();

    // Act
    for (const keyPath of keyPaths.values()) {
      const segments = keyPath.split('/');
      for (const [i, segment] of segments.entries()) {
        const name = segment.match(/^\{(\w+)\}$/)?.[1];
        if (!name) continue;
        const prefix = segments.slice(0, i).join('/');
        namesByPrefix.set(prefix, (namesByPrefix.get(prefix) ?? new Set()).add(name));
      }
    }

    // Assess
    const clashes = [...namesByPrefix].filter(([, names]) => names.size > 1);
    expect(clashes.map(([prefix, names]) => `${prefix}/{${[...names].join('|')}}`)).toEqual([]);
    expect(keyPathOf(routeFor('countSitePropertyView'))).toBe('/v1/site/properties/{property_id}/view');
  });

  it('hold each segment as a literal or one whole variable', () => {
    for (const keyPath of keyPaths.values()) {
      for (const segment of keyPath.split('/').slice(1)) {
        expect(segment).toMatch(/^(\{\w+\}|[A-Za-z0-9._:-]+)$/);
      }
    }
  });
});

describe('a function whose route key matched more than its row, invoked as Lambda', () => {
  function awsEvent(
    route: RouteDefinition,
    rawPath: string,
    pathParameters: Record<string, string>,
  ): HttpEvent {
    return httpEvent({
      route,
      routeKey: `${route.method} ${keyPathOf(route)}`,
      rawPath,
      rawQueryString: '',
      headers: {},
      query: {},
      pathParameters,
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
    });
  }

  it('answers POST …/deliveries/{uuid} without :redeliver 404 before authentication, and the full path reaches it', async () => {
    // Prepare
    const route = routeFor('redeliverWebhookDelivery');
    const bare = awsEvent(route, `/v1/webhooks/${ID}/deliveries/${ID}`, { endpoint_id: ID, delivery_id: ID });
    const full = awsEvent(route, `/v1/webhooks/${ID}/deliveries/${ID}:redeliver`, {
      endpoint_id: ID,
      delivery_id: `${ID}:redeliver`,
    });

    // Act
    const bareAnswer = await redeliver(bare, lambdaContext(route.operationId, 'bare'));
    const fullAnswer = await redeliver(full, lambdaContext(route.operationId, 'full'));

    // Assess
    expect(bareAnswer.statusCode).toBe(404);
    expect(JSON.parse(bareAnswer.body ?? '{}')).toEqual({ detail: 'Not Found' });
    // No key was sent: the request got past the route check to authentication.
    expect(fullAnswer.statusCode).toBe(401);
  });
});
