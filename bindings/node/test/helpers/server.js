'use strict';
// Throwaway redis-server processes (or $REDVOTE_SERVER, e.g. valkey-server)
// on free loopback ports; never the server at 6379.
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');
const Redis = require('ioredis');

const BINARY = process.env.REDVOTE_SERVER || 'redis-server';

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => (port === 6379 ? freePort().then(resolve, reject) : resolve(port)));
    });
  });
}

function checkBinary() {
  const r = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  if (r.error) {
    throw new Error(
      `redvote tests need ${BINARY} to start throwaway servers and could not run it (${r.error.code}). ` +
        (process.env.REDVOTE_SERVER ? 'REDVOTE_SERVER names a binary that does not run: fix the path or unset it. ' : '') +
        'Install Redis 7 or later: apt-get install -y redis-server (or set REDVOTE_SERVER to a valkey-server).'
    );
  }
  return r.stdout.trim();
}

/** Starts a server; answers {port, url, client(), stop()}. */
async function startServer() {
  checkBinary();
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const proc = spawn(
      BINARY,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--enable-debug-command', 'yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] }
    );
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    const ready = await waitReady(port, exited);
    if (!ready) {
      proc.kill('SIGKILL');
      if (/Address already in use/i.test(out)) continue;
      throw new Error(`${BINARY} did not start on port ${port}:\n${out}`);
    }
    const clients = [];
    return {
      port,
      url: `redis://127.0.0.1:${port}`,
      client(options = {}) {
        const c = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, ...options });
        clients.push(c);
        return c;
      },
      async stop() {
        for (const c of clients) c.disconnect();
        proc.kill('SIGKILL');
        await exited;
      },
    };
  }
  throw new Error(`${BINARY}: no free port after 5 attempts`);
}

async function waitReady(port, exited) {
  let done = false;
  exited.then(() => (done = true));
  for (let i = 0; i < 200 && !done; i++) {
    const ok = await new Promise((resolve) => {
      const sock = net.connect(port, '127.0.0.1');
      sock.on('connect', () => {
        sock.write('PING\r\n');
      });
      sock.on('data', (d) => {
        sock.destroy();
        resolve(d.toString().startsWith('+PONG'));
      });
      sock.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

module.exports = { startServer, freePort, BINARY };
