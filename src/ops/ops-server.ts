import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpsRoute } from './readiness';

// In Socket Mode nothing else listens on PORT: /healthz, /readyz and /metrics
// get a server of their own, up from the start, so that health checks answer
// while start-up waits for the database and before the socket is connected.
// (In HTTP mode they are routes of the receiver, beside /slack/events.)

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function serveOpsRoutes(routes: readonly OpsRoute[], port: number): Promise<OpsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = routes.find((r) => r.path === path && r.method.includes(req.method ?? 'GET'));
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    route.handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closed: Promise<void> | undefined;
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
