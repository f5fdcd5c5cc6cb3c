/**
 * Loaded with `--import` into a Cairn process started with an IPC channel: answers the
 * message "memory" with `process.memoryUsage()`, so that the soak can follow the V8 heap of
 * the API (its resident size comes from /proc). Does nothing in a process without a channel,
 * and never keeps one alive.
 */
if (process.send) {
  process.on('message', (message) => {
    if (message === 'memory') process.send?.(process.memoryUsage());
  });
  process.channel?.unref();
}
