// A stand-in for `parley serve` in the browser smoke test: the API contract the dashboard codes
// against (in memory) plus dist/ with the SPA fallback. Not a product server.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

export function startMockServer(port = 0) {
  const users = new Map();
  const bots = [];
  let n = 0;
  const send = (res, status, body) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const fail = (res, status, code, message) => send(res, status, { error: { code, message } });
  const readBody = (req) =>
    new Promise((resolve) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    const token = (req.headers.authorization ?? '').replace('Bearer ', '');
    const user = users.get(token);

    if (p === '/api/auth/signup' && req.method === 'POST') {
      const b = JSON.parse((await readBody(req)).toString());
      if (b.password !== b.confirmPassword) return fail(res, 400, 'validation', 'Passwords do not match');
      const u = { _id: `u${++n}`, id: `u${n}`, name: b.name ?? null, email: b.email, profilePicture: null };
      users.set(`tok-${u._id}`, u);
      return send(res, 201, { token: `tok-${u._id}`, user: u });
    }
    if (p.startsWith('/api/')) {
      if (!user) return fail(res, 401, 'unauthorized', 'Please sign in');
      if (p === '/api/me')
        return send(res, 200, {
          user,
          platform: [{ remainingCredits: 88, creditsUsed: 12, creditsTotal: 100, planType: 'free' }],
        });
      if (p === '/api/invitations') return send(res, 200, { invitations: [] });
      if (p === '/api/bots' && req.method === 'GET') return send(res, 200, { bots });
      if (p === '/api/bots' && req.method === 'POST') {
        const raw = (await readBody(req)).toString('latin1');
        const name = /name="name"\r\n\r\n([^\r]*)/.exec(raw)?.[1] ?? '';
        if (!name.trim()) return fail(res, 400, 'validation', 'Bot name is required');
        const bot = { _id: `bot-${++n}`, id: `bot-${n}`, name, description: null, icon: null, status: 'active', lastActive: new Date().toISOString() };
        bots.push(bot);
        return send(res, 201, { bot });
      }
      return fail(res, 404, 'not_found', 'Not found');
    }
    const file = extname(p) ? join(dist, p) : join(dist, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': types[extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
