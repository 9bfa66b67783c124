/**
 * The in-process CPU of a bench child server, on request over its IPC channel: the parent asks
 * before and after N sequential requests, so the difference is what the server's process spent on
 * them (user + system), the time it sat waiting on the network or DynamoDB left out.
 */
import type { Server } from 'node:http';

export const CPU_REQUEST = 'bench:cpu-usage';

/** Installs the answer in a child process started with an IPC channel. */
export function answerCpuUsageRequests(): void {
  process.on('message', (message: unknown) => {
    if (message === CPU_REQUEST) process.send?.({ cpuUsage: process.cpuUsage() });
  });
}

/**
 * What every bench child server does besides serving: answer CPU requests, and close on a signal or
 * when the IPC channel closes (the bench exited, however it exited), so that it never outlives it.
 */
export function serveAsBenchChild(server: Server): void {
  answerCpuUsageRequests();
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('disconnect', stop);
}
