/**
 * A TCP relay on a loopback port in front of a real service (here: Keycloak's JWKS), which a
 * test switches between forwarding, refusing connections (nothing listens: what a stopped
 * provider looks like) and hanging (connections accepted, never answered: a provider that is
 * up but stuck). The service itself keeps running for the other suites.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { findFreePort } from '../../../scripts/bench/api-process.js';

export type RelayMode = 'forward' | 'refuse' | 'hang';

export class TcpRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: RelayMode = 'refuse';

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** A relay on a free port, refusing until told otherwise. */
  static async create(target: { host: string; port: number }): Promise<TcpRelay> {
    return new TcpRelay(await findFreePort(), target);
  }

  /** Switches mode; open connections are cut, as when a provider goes away. */
  async set(mode: RelayMode): Promise<void> {
    this.mode = mode;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (mode === 'refuse') await this.unlisten();
    else await this.listen();
  }

  async close(): Promise<void> {
    await this.set('refuse');
  }

  private async listen(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  private async unlisten(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    if (this.mode === 'hang') return; // read nothing, answer nothing
    const upstream = createConnection(this.target);
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  }
}
