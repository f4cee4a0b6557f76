// Preloaded into the bot by the soak (node --expose-gc --require this file).
// On SIGUSR2 it forces a full garbage collection and writes the heap in use
// after it to stderr: a figure a major GC cannot swing, unlike RSS.
'use strict';
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') global.gc();
  const { heapUsed, rss } = process.memoryUsage();
  process.stderr.write(`[heap-probe] ${JSON.stringify({ heapUsedMb: Math.round((heapUsed / 1048576) * 10) / 10, rssMb: Math.round(rss / 1048576) })}\n`);
});
