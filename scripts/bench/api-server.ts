/**
 * The load section's service: the local API server alone in a process of its own, so that autocannon
 * in the bench does not share its event loop. Input: its environment; answer: its URL.
 */
import { answer, childInput } from './child.ts';

Object.assign(process.env, await childInput<Record<string, string>>());
(await import('../local/adapters/index.ts')).bindLocalAdapters();
const { startApiServer } = await import('../local/server.ts');
const { url } = await startApiServer({ port: 0, host: '127.0.0.1' });
answer({ url }, false);
