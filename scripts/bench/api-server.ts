/**
 * The load section's service: the local API server (scripts/local/server.ts) alone in a process of
 * its own, so that autocannon in the bench does not share its event loop. Input: its environment
 * (set before any functions/ module is imported); answer: its URL.
 */
import { answer, childInput } from './child.ts';

Object.assign(process.env, await childInput<Record<string, string>>());
(await import('../local/adapters/index.ts')).bindLocalAdapters();
const { startApiServer } = await import('../local/server.ts');
const { url } = await startApiServer({ port: 0, host: '127.0.0.1' });
answer({ url }, false);
