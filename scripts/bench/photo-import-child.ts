/**
 * One photo import in a fresh process, for the bench's peak-memory figure: reads an import message
 * on stdin, loads the worker, notes its resident size, runs the message, and prints the process's
 * peak resident set size (`process.resourceUsage().maxRSS`, KB) and the size after loading.
 * The parent (photo-import.ts) passes the environment of the bench's local stack.
 */
import { text } from 'node:stream/consumers';

const message = await text(process.stdin);
const { bindLocalAdapters } = await import('../local/adapters/index.ts');
bindLocalAdapters();
const { handler } = await import('../../functions/workers/image-import.ts');
const baselineRssKb = Math.round(process.memoryUsage().rss / 1024);
const result = await handler({
  Records: [
    {
      messageId: 'bench-peak',
      receiptHandle: 'bench-peak',
      body: message,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: 'bench',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:local:000000000000:images',
      awsRegion: 'local',
    },
  ],
});
if (result?.batchItemFailures.length) {
  process.stderr.write('photo-import-child: the worker reported a failure\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify({ peakRssKb: process.resourceUsage().maxRSS, baselineRssKb }));
