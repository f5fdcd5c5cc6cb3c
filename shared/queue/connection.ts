/**
 * Redis connection options for BullMQ queues and workers, from REDIS_URL.
 */
import type { ConnectionOptions } from 'bullmq';

/** Turns a redis:// URL into BullMQ connection options (workers need no per-request retry limit). */
export function buildConnection(redisUrl: string): ConnectionOptions {
  const url = new URL(redisUrl);
  const db = url.pathname.replace(/^\//, '');
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    db: db ? Number(db) : 0,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}
