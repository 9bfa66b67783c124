/**
 * A stand-in for the AWS services the functions send to, for the cold starts: the SDK's own clients,
 * pointed here by `AWS_ENDPOINT_URL_<SERVICE ID>`, load, sign, send and parse as deployed. Anything but
 * the one operation a service is used for is refused, so an unexpected call fails the sample.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';

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

/** An answer: `body` sent as JSON, or `raw` as it is (S3's XML); `etag` for an object written. */
type Reply = { status: number; body?: unknown; raw?: string; etag?: string; type: string };
const json = (body: unknown, type = 'application/json'): Reply => ({ status: 200, body, type });

/** Bedrock Converse: a Lead score, the one model call a first response makes (the AI worker's sample). */
function converse() {
  const reasons = ['Asked about a listing this week', 'Budget fits the asked price'];
  const score = { score: 72, buyer_type: 'investor', recommended_action: 'send_comps', reasons };
  const message = { role: 'assistant', content: [{ text: JSON.stringify(score) }] };
  const usage = { inputTokens: 420, outputTokens: 80, totalTokens: 500 };
  return json({ output: { message }, stopReason: 'end_turn', usage, metrics: {} });
}

/** The answer to one call, or none for a call the functions never make. */
function answer(
  service: string | undefined,
  target: string,
  req: IncomingMessage,
  input: Record<string, unknown>,
) {
  const path = req.url ?? '/';
  if (service === 'SQS' && target === 'AmazonSQS.SendMessage') {
    // The SDK checks the MD5 of the body it sent.
    const md5 = createHash('md5').update(String(input.MessageBody)).digest('hex');
    return json({ MessageId: randomUUID(), MD5OfMessageBody: md5 }, 'application/x-amz-json-1.0');
  }
  if (service === 'SESv2' && path.endsWith('/v2/email/outbound-emails'))
    return json({ MessageId: randomUUID() });
  if (service === 'Bedrock Runtime' && /\/model\/[^/]+\/converse$/.test(path)) return converse();
  // S3: no catalogue snapshot yet (GetObject, NoSuchKey: the site reads the table), a snapshot written
  // (PutObject, its ETag), a photo's file deleted (DeleteObject: 204, found or not), as S3 answers.
  if (service === 'S3' && req.method === 'GET')
    return { status: 404, type: 'application/xml', raw: '<Error><Code>NoSuchKey</Code></Error>' };
  if (service === 'S3' && req.method === 'PUT')
    return { status: 200, type: 'text/plain', etag: `"${randomUUID()}"` };
  if (service === 'S3' && req.method === 'DELETE') return { status: 204, type: 'text/plain' };
  if (service !== 'Secrets Manager' || target !== 'secretsmanager.GetSecretValue') return undefined;
  const secret = { ARN: String(input.SecretId), Name: 'cursor', SecretString: BENCH_CURSOR_SECRET };
  const version = { VersionId: randomUUID(), VersionStages: ['AWSCURRENT'], CreatedDate: Date.now() / 1000 };
  return json({ ...secret, ...version }, 'application/x-amz-json-1.1');
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
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await text(req);
    const [path, target] = [req.url ?? '/', String(req.headers['x-amz-target'] ?? '')];
    const service = target.startsWith('AmazonSQS.')
      ? 'SQS'
      : SERVICES.find((s) => path.startsWith(`/${prefixOf(s)}/`));
    let reply: Reply | undefined;
    try {
      reply = answer(service, target, req, body && service !== 'S3' ? JSON.parse(body) : {});
    } catch {
      reply = undefined;
    }
    const key = reply && service ? service : 'refused';
    counts[key] = (counts[key] ?? 0) + 1;
    const message = `The bench responder does not answer ${target || path}`;
    const refused: Reply = {
      status: 400,
      type: 'application/json',
      body: { __type: 'ValidationException', message },
    };
    const { status, type, body: out, raw, etag } = reply ?? refused;
    const error = status >= 400 && raw === undefined ? { 'x-amzn-errortype': 'ValidationException' } : {};
    const ids = { 'x-amzn-requestid': randomUUID(), 'x-amz-request-id': randomUUID() };
    res.writeHead(status, { 'content-type': type, ...ids, ...error, ...(etag ? { etag } : {}) });
    res.end(raw ?? (out === undefined ? '' : JSON.stringify(out)));
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
