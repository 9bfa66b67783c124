/**
 * A stand-in for the AWS services the functions send to (SQS, SES v2, Bedrock Runtime, Secrets
 * Manager, S3's DeleteObject), for the cold-start section. Each fresh process runs as in Lambda, with the SDK's own
 * clients, pointed here by the SDK's standard `AWS_ENDPOINT_URL_<SERVICE ID>` variables
 * (awsEndpointEnv): the client's code is loaded, a request is signed, sent and parsed, as deployed.
 * Each answer is the smallest valid response of the one operation the service uses; anything else
 * is a 400 in the service's error shape, so an unexpected call fails the sample loudly.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** The services answered here, named as their SDK `serviceId`s (the environment variable's suffix). */
export const RESPONDER_SERVICES = ['SQS', 'SESv2', 'Bedrock Runtime', 'Secrets Manager', 'S3'] as const;
export type ResponderService = (typeof RESPONDER_SERVICES)[number];

/** The cursor key the responder's GetSecretValue returns (at least 16 characters, as required). */
export const BENCH_CURSOR_SECRET = 'bench-cursor-secret-from-the-responder';

/**
 * The SDK's Bedrock Runtime client sends over HTTP/2 (its default handler, for the streaming
 * operations), the others over HTTP/1.1: the responder listens on one port for each.
 */
const HTTP2_SERVICES: readonly ResponderService[] = ['Bedrock Runtime'];

/** Where the responder listens: `http://127.0.0.1:PORT` for HTTP/1.1 and for HTTP/2 (cleartext). */
export interface ResponderOrigins {
  http1: string;
  http2: string;
}

/**
 * The SDK reads `AWS_ENDPOINT_URL_` + the serviceId's words upper-cased and joined by `_`
 * (`Bedrock Runtime` → `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`); each service gets its own path prefix
 * here so that the answer never depends on guessing the service from the request.
 */
export function awsEndpointEnv(origins: ResponderOrigins): Record<string, string> {
  return Object.fromEntries(
    RESPONDER_SERVICES.map((service) => [
      `AWS_ENDPOINT_URL_${service.split(' ').join('_').toUpperCase()}`,
      `${HTTP2_SERVICES.includes(service) ? origins.http2 : origins.http1}/${prefixOf(service)}`,
    ]),
  );
}

/**
 * The AI queue's URL on the responder. The SDK's SQS client sends to the QueueUrl's own host (as
 * in AWS, where that host is the SQS endpoint) unless an endpoint is passed in code, whatever
 * AWS_ENDPOINT_URL_SQS says; so the queue must live here, and SQS is told apart by its target header.
 */
export function responderQueueUrl(origins: ResponderOrigins): string {
  return `${origins.http1}/000000000000/listings-leads-ai`;
}

const prefixOf = (service: ResponderService) => service.toLowerCase().replace(/\s+/g, '-');

interface Answer {
  status: number;
  body: unknown;
  contentType: string;
}

const json = (body: unknown, contentType = 'application/json'): Answer => ({
  status: 200,
  body,
  contentType,
});

/** A Lead score the scoring schema accepts (functions/domain/scoring.ts ScoreOutput). */
const SCORE = {
  score: 72,
  buyer_type: 'investor',
  recommended_action: 'send_comps',
  reasons: ['Asked about a listing this week', 'Budget fits the asked price'],
};

/** An enrichment the schema accepts: no translation (null), one highlight, an SEO line per language. */
function enrichmentFor(user: string): unknown {
  const languages = (JSON.parse(user) as { languages?: string[] }).languages ?? ['en'];
  return {
    languages: Object.fromEntries(
      languages.map((l) => [
        l,
        {
          title: null,
          description: null,
          highlights: ['Close to the sea'],
          seo_description: 'A bench listing',
        },
      ]),
    ),
  };
}

/** Bedrock Converse: the scoring or the enrichment JSON, as the system prompt asks. */
function converse(request: Record<string, unknown>): Answer {
  const system = JSON.stringify(request.system ?? '');
  const messages = request.messages as { content: { text?: string }[] }[] | undefined;
  const user = messages?.[0]?.content?.[0]?.text ?? '{}';
  const text = JSON.stringify(/score real-estate leads/i.test(system) ? SCORE : enrichmentFor(user));
  return json({
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 420, outputTokens: 80, totalTokens: 500 },
    metrics: { latencyMs: 1 },
  });
}

function answer(service: ResponderService, target: string, path: string, body: string): Answer | undefined {
  const input = (body ? JSON.parse(body) : {}) as Record<string, unknown>;
  switch (service) {
    case 'SQS':
      // AWS JSON 1.0; the SDK checks MD5OfMessageBody against what it sent.
      if (target !== 'AmazonSQS.SendMessage') return undefined;
      return json(
        {
          MessageId: randomUUID(),
          MD5OfMessageBody: createHash('md5')
            .update(String(input.MessageBody ?? ''))
            .digest('hex'),
        },
        'application/x-amz-json-1.0',
      );
    case 'SESv2':
      return path.endsWith('/v2/email/outbound-emails') ? json({ MessageId: randomUUID() }) : undefined;
    case 'Bedrock Runtime':
      return /\/model\/[^/]+\/converse$/.test(path) ? converse(input) : undefined;
    case 'S3':
      return undefined; // only DeleteObject, answered in startAwsResponder
    case 'Secrets Manager':
      if (target !== 'secretsmanager.GetSecretValue') return undefined;
      return json(
        {
          ARN: String(input.SecretId),
          Name: 'bench-cursor-secret',
          VersionId: randomUUID(),
          SecretString: BENCH_CURSOR_SECRET,
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Math.floor(Date.now() / 1000),
        },
        'application/x-amz-json-1.1',
      );
  }
}

export interface AwsResponder {
  origins: ResponderOrigins;
  /** Calls answered so far, per service (`SQS`, …), and refused ones under `refused`. */
  calls(): Record<string, number>;
  stop(): Promise<void>;
}

type Request = Pick<IncomingMessage, 'url' | 'headers' | 'method'> & Pick<NodeJS.EventEmitter, 'on'>;
interface Response {
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  end(text: string): unknown;
}

/** Starts the responder on 127.0.0.1 (two free ports: HTTP/1.1 and HTTP/2). */
export async function startAwsResponder(): Promise<AwsResponder> {
  const counts: Record<string, number> = {};
  const handle = (req: Request, res: Response, body: string) => {
    const path = req.url ?? '/';
    const target = String(req.headers['x-amz-target'] ?? '');
    const service = target.startsWith('AmazonSQS.')
      ? 'SQS'
      : RESPONDER_SERVICES.find((s) => path.startsWith(`/${prefixOf(s)}/`));
    if (service === 'S3' && req.method === 'DELETE') {
      // S3 DeleteObject (a photo's file): 204 and no body, as S3 answers it, found or not.
      counts.S3 = (counts.S3 ?? 0) + 1;
      res.writeHead(204, { 'x-amz-request-id': randomUUID() });
      res.end('');
      return;
    }
    let result: Answer | undefined;
    try {
      result = service ? answer(service, target, path, body) : undefined;
    } catch {
      result = undefined;
    }
    const key = result && service ? service : 'refused';
    counts[key] = (counts[key] ?? 0) + 1;
    const reply = result ?? {
      status: 400,
      contentType: 'application/json',
      body: {
        __type: 'ValidationException',
        message: `The bench responder does not answer ${target || path}`,
      },
    };
    const text = JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      'content-type': reply.contentType,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
      ...(reply.status >= 400 ? { 'x-amzn-errortype': 'ValidationException' } : {}),
    });
    res.end(text);
  };
  const onRequest = (req: Request, res: Response) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  };
  const http1 = createServer(onRequest);
  const http2 = createHttp2Server(onRequest);
  const sessions = new Set<Http2Session>();
  http2.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const listen = async (server: Server | Http2Server) => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const origins = { http1: await listen(http1), http2: await listen(http2) };
  return {
    origins,
    calls: () => ({ ...counts }),
    stop: async () => {
      http1.closeAllConnections();
      for (const session of sessions) session.destroy();
      await Promise.all([
        new Promise<void>((done) => http1.close(() => done())),
        new Promise<void>((done) => http2.close(() => done())),
      ]);
    },
  };
}
