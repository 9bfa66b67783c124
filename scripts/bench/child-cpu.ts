/**
 * The in-process CPU of a bench child server, on request over its IPC channel: the parent asks
 * before and after N sequential requests, so the difference is what the server's process spent on
 * them (user + system), the time it sat waiting on the network or DynamoDB left out.
 */
export const CPU_REQUEST = 'bench:cpu-usage';

/** Installs the answer in a child process started with an IPC channel. */
export function answerCpuUsageRequests(): void {
  process.on('message', (message: unknown) => {
    if (message === CPU_REQUEST) process.send?.({ cpuUsage: process.cpuUsage() });
  });
}
