// A webhook receiver in the chaos process: verifies each delivery's Standard Webhooks signature and
// counts, per `webhook-id`, the deliveries it answered 2xx (successes) and the ones it refused while
// down. It can be up, down (answering 503) or closed (not listening: connections are refused).
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

export function createReceiver({ port = 0 } = {}) {
  let verifier = null;
  let mode = 'up';
  let listening = false;
  let boundPort = port;
  const sockets = new Set();
  /** webhook-id -> {successes, refused, firstSuccessAt, lastSuccessAt, type, data} */
  const seen = new Map();
  let badSignatures = 0;
  let downTimer = null;

  const entry = (id) => {
    let e = seen.get(id);
    if (!e) seen.set(id, (e = { successes: 0, refused: 0, firstSuccessAt: null, lastSuccessAt: null, type: null, data: null }));
    return e;
  };

  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (mode !== 'up') {
        if (id) entry(id).refused++;
        res.writeHead(503, { 'retry-after': '5' }).end('down');
        return;
      }
      let event;
      try {
        if (!verifier) throw new Error('no secret yet');
        event = verifier.verify(body, req.headers);
      } catch {
        badSignatures++;
        res.writeHead(400).end('bad signature');
        return;
      }
      const e = entry(id);
      e.successes++;
      e.type = event.type;
      e.data = event.data;
      e.lastSuccessAt = Date.now();
      e.firstSuccessAt ??= e.lastSuccessAt;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 1000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const listen = () =>
    new Promise((resolve, reject) => {
      if (listening) return resolve();
      server.once('error', reject);
      server.listen(boundPort, '127.0.0.1', () => {
        server.off('error', reject);
        boundPort = server.address().port;
        listening = true;
        resolve();
      });
    });

  const close = () =>
    new Promise((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });

  /** `up`, `down` (503 to every delivery) or `closed` (the port refuses connections). */
  async function setMode(next) {
    mode = next;
    if (next === 'closed') await close();
    else await listen();
  }

  /** Down now: 503 for `downMs`, then closed for `closedMs`, then up again. */
  function outage(downMs, closedMs) {
    clearTimeout(downTimer);
    setMode('down');
    downTimer = setTimeout(async () => {
      await setMode('closed');
      downTimer = setTimeout(() => setMode('up'), closedMs);
    }, downMs);
  }

  return {
    start: listen,
    stop: async () => {
      clearTimeout(downTimer);
      await close();
    },
    url: () => `http://127.0.0.1:${boundPort}/hooks`,
    setSecret: (secret) => (verifier = new Webhook(secret)),
    setMode,
    outage,
    mode: () => mode,
    seen,
    badSignatures: () => badSignatures,
  };
}
