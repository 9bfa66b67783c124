import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stand-in received it. */
export interface Received {
  method: string;
  /** The path as sent, still percent-encoded (`/model/a%3Ab/converse`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the stand-in answers one request. */
export type Reply = (res: ServerResponse, req: IncomingMessage) => void;

export interface StandIn {
  /** `http://127.0.0.1:<port>`, to pass as a port's `endpoint`. */
  endpoint: string;
  /** Every request received so far, in order. */
  requests: Received[];
  close: () => Promise<void>;
}

/** A JSON answer, typed as the AWS JSON protocols type theirs unless `headers` says otherwise. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
    res.end(JSON.stringify(body));
  };

/** Drops the connection without answering, as a reset by a load balancer would. */
export const hangUp: Reply = (_res, req) => {
  req.socket.destroy();
};

const open = new Set<StandIn>();

/**
 * A real HTTP server on a free loopback port standing in for an AWS service: the n-th request gets
 * the n-th reply and the last reply repeats (`json(200, {})` when none is given). Close it with
 * `closeStandIns` in an `afterEach`.
 */
export async function awsStandIn(...replies: Reply[]): Promise<StandIn> {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const reply = replies[Math.min(requests.length, replies.length) - 1] ?? json(200, {});
      reply(res, req);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const standIn: StandIn = {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      open.delete(standIn);
      // Kept-alive sockets would hold `close` open until they time out.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  open.add(standIn);
  return standIn;
}

/** Closes every stand-in still open, with all its connections. */
export async function closeStandIns(): Promise<void> {
  await Promise.all([...open].map((standIn) => standIn.close()));
}

/** `[region, service]` of a request's `Credential=<akid>/<date>/<region>/<service>/aws4_request`. */
export const credentialScope = (headers: IncomingHttpHeaders): string[] | undefined =>
  String(headers.authorization)
    .match(/Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/)
    ?.slice(1);
