import type { IncomingMessage, ServerResponse } from 'node:http';

// The two HTTP chores of the stand-in's server and of its page.

export function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': `${contentType}; charset=utf-8`, 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

export async function readBody(req: IncomingMessage, limit = 4 * 1024 * 1024): Promise<string> {
  return (await readBytes(req, limit)).toString('utf8');
}

/** The body as it came, bytes (a file uploaded), at most `limit` of them. */
export function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
