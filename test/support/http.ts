import type { Server } from 'node:http';
import { startApiServer } from '../../scripts/local/server.ts';
import { checkResponse } from './contract.ts';

export interface TestApi {
  url: string;
  close: () => Promise<void>;
  /**
   * fetch against the server with a Bearer key; JSON bodies are serialised. Every answer is checked
   * against docs/openapi.json (contract.ts): an undocumented status, header or body fails the call.
   */
  call: (
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ) => Promise<{ status: number; headers: Headers; body: any; text: string }>;
}

/** The real local HTTP server (the route table, the handler modules) on a free loopback port. */
export async function startTestApi(defaultKey?: string): Promise<TestApi> {
  const { server, url } = await startApiServer({ port: 0 });
  return {
    url,
    close: () => closeServer(server),
    call: async (method, path, options = {}) => {
      const key = options.key === undefined ? defaultKey : options.key;
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      if (key) headers.authorization = `Bearer ${key}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      checkResponse(method, path, response.status, response.headers, parsed ?? (text || undefined));
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
