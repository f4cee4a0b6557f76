import { createServer } from 'node:http';
import { exitOnSigterm, readTargetEnv } from './target-env';

// Ceiling 1: node:http answering 200 to everything, /healthz included.

const env = readTargetEnv();
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '0' });
    res.end();
  });
});
server.listen(env.port, '127.0.0.1');
exitOnSigterm(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);
