/**
 * A stand-in for the AWS services the functions send to (SQS, SES v2, Bedrock Runtime, Secrets
 * Manager, S3's DeleteObject), for the cold starts: each fresh process runs the SDK's own clients,
 * pointed here by the SDK's standard `AWS_ENDPOINT_URL_<SERVICE ID>` variables, so a client's code
 * is loaded and a request signed, sent and parsed, as deployed. Each answer is the smallest valid
 * response of the one operation the service uses; anything else is a 400 in the service's error
 * shape, so an unexpected call fails the sample loudly.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';

/** The services answered, by SDK `serviceId`; each has its own path prefix here. */
const SERVICES = ['SQS', 'SESv2', 'Bedrock Runtime', 'Secrets Manager', 'S3'];
const prefixOf = (service: string) => service.toLowerCase().replace(/\s+/g, '-');
/** The cursor key GetSecretValue answers (at least 16 characters). */
export const BENCH_CURSOR_SECRET = 'bench-cursor-secret-from-the-responder';

/** `AWS_ENDPOINT_URL_` + the serviceId's words, upper-cased and joined by `_`; Bedrock speaks HTTP/2. */
export const awsEndpointEnv = (origins: { http1: string; http2: string }) =>
  Object.fromEntries(
    SERVICES.map((s) => [
      `AWS_ENDPOINT_URL_${s.replace(' ', '_').toUpperCase()}`,
      `${s === 'Bedrock Runtime' ? origins.http2 : origins.http1}/${prefixOf(s)}`,
    ]),
  );

/** The queue URL: the SQS client sends to the URL's own host whatever AWS_ENDPOINT_URL_SQS says. */
export const responderQueueUrl = (origins: { http1: string }) => `${origins.http1}/000000000000/queue`;

const json = (body: unknown, type = 'application/json') => ({ status: 200, body, type });

/** Bedrock Converse: a Lead score, or an enrichment of each language asked for, as the prompt says. */
function converse(request: { system?: unknown; messages?: { content: { text?: string }[] }[] }) {
  const { languages = ['en'] } = JSON.parse(request.messages?.[0]?.content?.[0]?.text ?? '{}') as {
    languages?: string[];
  };
  const reasons = ['Asked about a listing this week', 'Budget fits the asked price'];
  const score = { score: 72, buyer_type: 'investor', recommended_action: 'send_comps', reasons };
  const texts = {
    title: null,
    description: null,
    highlights: ['By the sea'],
    seo_description: 'A bench listing',
  };
  const enrichment = { languages: Object.fromEntries(languages.map((l) => [l, texts])) };
  const text = JSON.stringify(
    /score real-estate leads/i.test(JSON.stringify(request.system)) ? score : enrichment,
  );
  const usage = { inputTokens: 420, outputTokens: 80, totalTokens: 500 };
  return json({
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason: 'end_turn',
    usage,
    metrics: {},
  });
}

function answer(service: string | undefined, target: string, path: string, input: Record<string, unknown>) {
  if (service === 'SQS' && target === 'AmazonSQS.SendMessage') {
    // The SDK checks the MD5 of the body it sent.
    const md5 = createHash('md5').update(String(input.MessageBody)).digest('hex');
    return json({ MessageId: randomUUID(), MD5OfMessageBody: md5 }, 'application/x-amz-json-1.0');
  }
  if (service === 'SESv2' && path.endsWith('/v2/email/outbound-emails'))
    return json({ MessageId: randomUUID() });
  if (service === 'Bedrock Runtime' && /\/model\/[^/]+\/converse$/.test(path)) return converse(input);
  if (service !== 'Secrets Manager' || target !== 'secretsmanager.GetSecretValue') return undefined;
  const secret = {
    ARN: String(input.SecretId),
    Name: 'cursor',
    SecretString: BENCH_CURSOR_SECRET,
    VersionId: randomUUID(),
  };
  return json(
    { ...secret, VersionStages: ['AWSCURRENT'], CreatedDate: Date.now() / 1000 },
    'application/x-amz-json-1.1',
  );
}

export interface AwsResponder {
  origins: { http1: string; http2: string };
  /** Calls answered so far, per service, and the refused ones under `refused`. */
  calls(): Record<string, number>;
  stop(): Promise<void>;
}

/** Starts the responder on 127.0.0.1: a port for HTTP/1.1, one for HTTP/2. */
export async function startAwsResponder(): Promise<AwsResponder> {
  const counts: Record<string, number> = {};
  const handle = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const [path, target] = [req.url ?? '/', String(req.headers['x-amz-target'] ?? '')];
    const service = target.startsWith('AmazonSQS.')
      ? 'SQS'
      : SERVICES.find((s) => path.startsWith(`/${prefixOf(s)}/`));
    let result: ReturnType<typeof answer>;
    try {
      // S3 DeleteObject (a photo's file): 204 and no body, found or not, as S3 answers it.
      if (service === 'S3' && req.method === 'DELETE')
        result = { status: 204, body: undefined, type: 'text/plain' };
      else result = answer(service, target, path, body ? JSON.parse(body) : {});
    } catch {
      result = undefined;
    }
    const key = result && service ? service : 'refused';
    counts[key] = (counts[key] ?? 0) + 1;
    const message = `The bench responder does not answer ${target || path}`;
    const reply = result ?? {
      status: 400,
      type: 'application/json',
      body: { __type: 'ValidationException', message },
    };
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    const headers = {
      'content-type': reply.type,
      'x-amzn-requestid': randomUUID(),
      'x-amz-request-id': randomUUID(),
    };
    res.writeHead(
      reply.status,
      reply.status >= 400 ? { ...headers, 'x-amzn-errortype': 'ValidationException' } : headers,
    );
    res.end(text);
  };
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  };
  const http1 = createServer(onRequest);
  const http2 = createHttp2Server(onRequest as never);
  const sessions = new Set<Http2Session>();
  http2.on('session', (s: Http2Session) => {
    sessions.add(s);
    s.once('close', () => sessions.delete(s));
  });
  const listen = async (server: typeof http1 | typeof http2) => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const origins = { http1: await listen(http1), http2: await listen(http2) };
  const close = (server: typeof http1 | typeof http2) => new Promise((done) => server.close(done));
  return {
    origins,
    calls: () => ({ ...counts }),
    stop: async () => {
      http1.closeAllConnections();
      for (const session of sessions) session.destroy();
      await Promise.all([close(http1), close(http2)]);
    },
  };
}
