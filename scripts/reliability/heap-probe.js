/**
 * Preloaded into the server the fuzzer starts (`node --expose-gc -r scripts/reliability/heap-probe.js dist/main`):
 * on a `heap` message over the IPC channel, collects garbage fully and answers the heap in use.
 */
process.on('message', (message) => {
  if (!message || message.type !== 'heap') return;
  global.gc();
  global.gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.send({ type: 'heap', heapUsed, rss });
});
// The IPC channel must not keep the server alive once it has closed its port.
if (process.channel) process.channel.unref();
