/**
 * Child process of the load phase: the local API server (scripts/local/server.ts) alone in its own
 * process, so that autocannon's CPU use in the parent does not share the server's event loop, as
 * it would not in production. The parent passes the environment; the URL goes back on stdout.
 */
const { serveAsBenchChild } = await import('./child-cpu.ts');
(await import('../local/adapters/index.ts')).bindLocalAdapters();
const { startApiServer } = await import('../local/server.ts');
const { server, url } = await startApiServer({ port: 0, host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);
serveAsBenchChild(server);
