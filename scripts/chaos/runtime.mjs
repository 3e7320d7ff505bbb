// The local runtime the fault suite runs against: `wrangler dev` on its own port and its own
// persisted state (migrated the way `npm start` does it), started in a process group of its own
// so a hard kill (`SIGKILL` of the group) takes workerd down with it, mid-write, like a crash.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, cpSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';

const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** True while something accepts TCP connections on the port. */
function portOpen(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A digest of every migration file and the wrangler config: a new migration builds a new template. */
function migrationsHash(root) {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else hash.update(`${path.slice(root.length)}\0`).update(readFileSync(path));
    }
  };
  walk(join(root, 'migrations'));
  hash.update(readFileSync(join(root, 'wrangler.toml')));
  return hash.digest('hex').slice(0, 16);
}

/** True while any process of the group still exists. */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runtime control: `migrate()`, `start()`, `kill()` (hard, the whole process group), `stop()`.
 * `vars` go to wrangler as `--var NAME:value`. Everything wrangler prints goes to `logFile`.
 */
export function createRuntime({ root, port, inspectorPort, persistDir, logFile, vars }) {
  const bin = join(root, 'node_modules', '.bin');
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, CI: 'true', WRANGLER_SEND_METRICS: 'false' };
  const base = `http://127.0.0.1:${port}`;
  mkdirSync(dirname(persistDir), { recursive: true });
  let child = null;
  let starts = 0;

  const log = (line) => {
    const fd = openSync(logFile, 'a');
    writeSync(fd, `\n===== ${new Date().toISOString()} ${line}\n`);
    closeSync(fd);
  };

  function runLogged(cmd, args) {
    return new Promise((resolve, reject) => {
      const fd = openSync(logFile, 'a');
      const p = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', fd, fd] });
      p.on('error', reject);
      p.on('exit', (code) => {
        closeSync(fd);
        code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code} (see ${logFile})`));
      });
    });
  }

  /**
   * A fresh `persistDir` holding every migration of the control plane and both shards. They are
   * applied the way `npm start` applies them (`scripts/migrate.mjs --local --persist-to`), once per
   * set of migrations, into a template folder beside it that later runs copy (applying them takes
   * minutes on a busy 2-core machine). Returns whether the template was built now.
   */
  async function prepareState() {
    const template = join(dirname(persistDir), `migrated-${migrationsHash(root)}`);
    let built = false;
    if (!existsSync(join(template, '.complete'))) {
      for (const old of readdirSync(dirname(persistDir)).filter((n) => n.startsWith('migrated-'))) {
        rmSync(join(dirname(persistDir), old), { recursive: true, force: true });
      }
      mkdirSync(template, { recursive: true });
      log(`migrate ${template}`);
      await runLogged(process.execPath, [join(root, 'scripts', 'migrate.mjs'), '--local', '--persist-to', template]);
      writeFileSync(join(template, '.complete'), new Date().toISOString());
      built = true;
    }
    rmSync(persistDir, { recursive: true, force: true });
    cpSync(template, persistDir, { recursive: true });
    return built;
  }

  /** Starts wrangler dev and resolves once it answers; returns the milliseconds it took. */
  async function start() {
    if (child) throw new Error('runtime already running');
    if (await portOpen(port)) throw new Error(`port ${port} is in use: another chaos run? pick one with --port`);
    const began = Date.now();
    starts++;
    log(`start #${starts}`);
    const fd = openSync(logFile, 'a');
    const args = [
      'dev',
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--inspector-port',
      String(inspectorPort),
      '--persist-to',
      persistDir,
      '--test-scheduled',
      '--show-interactive-dev-session=false',
      '--log-level',
      'warn',
      ...Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
    ];
    const p = spawn(join(bin, 'wrangler'), args, { cwd: root, env, stdio: ['ignore', fd, fd], detached: true });
    closeSync(fd);
    child = p;
    const exited = new Promise((resolve) => {
      p.once('exit', (code, signal) => resolve({ code, signal }));
      p.once('error', (err) => resolve({ code: err.code, signal: null }));
    });
    p.exited = exited;
    let gone = null;
    exited.then((how) => (gone = how));
    for (;;) {
      if (gone) {
        child = null;
        throw new Error(`wrangler dev exited (${gone.code ?? gone.signal}) before it answered; see ${logFile}`);
      }
      if (Date.now() - began > 180_000) throw new Error(`wrangler dev did not answer within 180 s; see ${logFile}`);
      try {
        const res = await fetch(`${base}/`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.ok) return Date.now() - began;
      } catch {
        /* not up yet */
      }
      await sleep(250);
    }
  }

  /** SIGKILL to wrangler's whole process group (workerd included); resolves once the port is free. */
  async function kill() {
    const p = child;
    if (!p) return;
    child = null;
    log('SIGKILL');
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await Promise.race([p.exited, sleep(10_000)]);
    // Every process of the group gone (workerd reparented and reaped), then the port closed.
    for (let i = 0; i < 100 && groupAlive(p.pid); i++) await sleep(100);
    for (let i = 0; i < 100 && (await portOpen(port)); i++) await sleep(100);
    if (await portOpen(port)) throw new Error(`port ${port} still answers after the kill`);
  }

  /** The end of a run: the same hard stop (the state on disk is all that is kept). */
  const stop = kill;

  return { base, prepareState, start, kill, stop, running: () => child !== null, pid: () => child?.pid ?? null };
}

/**
 * Ticks the cron trigger the way a deployment would (`GET /__scheduled`), every `minMs`..`maxMs`
 * (random), while the runtime is up; a tick that finds it down is skipped. Returns `stop()`.
 */
export function startCronTicker({ base, rand, minMs, maxMs, onTick = () => {} }) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    try {
      const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`, { signal: AbortSignal.timeout(30_000) });
      await res.arrayBuffer();
      onTick(res.status);
    } catch {
      onTick(null);
    }
    if (!stopped) timer = setTimeout(tick, minMs + rand() * (maxMs - minMs));
  };
  timer = setTimeout(tick, minMs + rand() * (maxMs - minMs));
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
