import type { Server } from 'node:http';
import { expect } from 'vitest';
import { startApiServer } from '../../scripts/local/server.ts';
import { checkResponse } from './contract.ts';
import { afterIndexLag } from './eventually.ts';

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

/**
 * Every page of a list the API serves at `path` (which may carry a query), following `next_cursor`
 * to its end, each page's `data` as served. A list is read through an index, so the index lag after
 * the test's writes passes first. Each page must answer 200, and a list must end within 50 pages.
 */
export async function allPages<T>(api: TestApi, path: string, key: string): Promise<T[][]> {
  const pages: T[][] = [];
  await afterIndexLag();
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path;
    const res = await api.call('GET', url, { key });
    expect(res.status, res.text).toBe(200);
    pages.push(res.body.data);
    cursor = res.body.next_cursor;
    expect(pages.length).toBeLessThan(50);
  } while (cursor !== null);
  return pages;
}

/** The order of a list: by `updated_at`, then by `id`. */
export const byUpdatedThenId = (
  a: { updated_at: string; id: string },
  b: { updated_at: string; id: string },
) => (a.updated_at === b.updated_at ? (a.id < b.id ? -1 : 1) : a.updated_at < b.updated_at ? -1 : 1);

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
