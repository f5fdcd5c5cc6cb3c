/**
 * The access log: one line per response whose `path` is the full request path, so that an
 * answer from a router mounted below the root (CSW at /catalogue/csw) can be told apart. The
 * query string is left out.
 */
import { Writable } from 'node:stream';
import { expect } from 'chai';
import request from 'supertest';
import winston from 'winston';
import { createApp } from '../../services/api/app.js';
import { loadConfig } from '../../shared/config/index.js';
import { SqliteBackend } from '../../shared/search/sqlite/sqlite-backend.js';

describe('request log', () => {
  it('records the full path of a CSW request, without its query string', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = winston.createLogger({
      level: 'info',
      format: winston.format.json(),
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk, _encoding, done) {
              lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
              done();
            },
          }),
        }),
      ],
    });
    const backend = new SqliteBackend({ path: ':memory:' });
    try {
      const config = loadConfig({ LOG_LEVEL: 'info', SQLITE_PATH: ':memory:' });
      const app = createApp({ config, backend, logger });
      await request(app)
        .get('/catalogue/csw?service=CSW&request=GetCapabilities&secret=not-logged')
        .expect(200);
      await request(app).get('/catalogue/csw/').expect(200);
      const paths = lines.filter((line) => line.message === 'request').map((line) => line.path);
      expect(paths).to.deep.equal(['/catalogue/csw', '/catalogue/csw/']);
    } finally {
      await backend.close();
    }
  });

  it('builds no access line below the configured level (none formatted, none written)', async () => {
    const formatted: string[] = [];
    const written: string[] = [];
    const logger = winston.createLogger({
      level: 'warn',
      format: winston.format.combine(
        winston.format((info) => {
          formatted.push(String(info.message));
          return info;
        })(),
        winston.format.json(),
      ),
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk, _encoding, done) {
              written.push(String(chunk));
              done();
            },
          }),
        }),
      ],
    });
    const backend = new SqliteBackend({ path: ':memory:' });
    try {
      const config = loadConfig({ LOG_LEVEL: 'warn', SQLITE_PATH: ':memory:' });
      const app = createApp({ config, backend, logger });
      await request(app).get('/catalogue/csw?service=CSW&request=GetCapabilities').expect(200);
      logger.warn('marker');
      expect(formatted).to.deep.equal(['marker']);
      expect(written).to.have.length(1);
    } finally {
      await backend.close();
    }
  });
});
