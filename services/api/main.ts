/**
 * The API process: loads configuration, opens the backend, listens, and shuts down
 * gracefully on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig } from '../../shared/config/index.js';
import { createLogger } from '../../shared/logging/index.js';
import { createBackend } from '../../shared/search/create-backend.js';
import { createApp } from './app.js';
import { createHttpServer } from './http-server.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'cairn-api');
  const backend = await createBackend(config);
  const app = createApp({ config, backend, logger });
  const server = createHttpServer(app, config);
  server.listen(config.port, config.host, () => {
    logger.info('listening', {
      url: `http://${config.host}:${config.port}/catalogue`,
      backend: backend.kind,
    });
  });

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    server.close(() => {
      void backend.close().finally(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('Cairn API failed to start:', error instanceof Error ? error.message : error);
  }
  process.exit(1);
});
