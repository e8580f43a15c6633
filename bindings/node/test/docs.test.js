'use strict';
// Runs every code block of docs/node.md: the sh install block into a scratch
// project (npm pack of this package, then npm install of the tarball), then
// each js block there, in order, against a throwaway server (REDVOTE_URL),
// and the ts block compiled with tsc --strict and run the same way.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { startServer } = require('./helpers/server');

const PKG = path.join(__dirname, '..');
const REPO = path.resolve(PKG, '..', '..');
const DOC = path.join(REPO, 'docs', 'node.md');

function blocks(text) {
  const out = [];
  const re = /^```([a-z]*)\n([\s\S]*?)^```$/gm;
  let m;
  while ((m = re.exec(text))) out.push({ lang: m[1], code: m[2], line: text.slice(0, m.index).split('\n').length });
  return out;
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180000, ...opts });
  return { status: r.status, out: `${r.stdout || ''}${r.stderr || ''}`, stdout: r.stdout || '', stderr: r.stderr || '', error: r.error };
}

test('every code block of docs/node.md (and of the README) runs', async (t) => {
  const readme = blocks(fs.readFileSync(path.join(PKG, 'README.md'), 'utf8')).map((b) => ({ ...b, doc: 'bindings/node/README.md' }));
  const all = [...blocks(fs.readFileSync(DOC, 'utf8')), ...readme];
  assert.ok(all.length >= 5, 'docs/node.md has its code blocks');
  for (const b of all) assert.ok(['sh', 'js', 'ts'].includes(b.lang), `docs/node.md:${b.line}: a block of ${b.lang || 'no language'} this test cannot run`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redvote-docs-'));
  const server = await startServer();
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'docs-scratch', private: true }));
    const env = {
      ...process.env,
      REDVOTE_URL: server.url,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    let n = 0;
    for (const b of all) {
      n += 1;
      const where = `${b.doc || 'docs/node.md'}:${b.line}`;
      if (b.lang === 'sh') {
        const script = b.code.replaceAll('/path/to/redvote', REPO);
        const r = run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, env });
        assert.equal(r.status, 0, `${where}: ${r.out}`);
        const shipped = path.join(dir, 'node_modules', 'redvote', 'lua', 'manifest.json');
        assert.ok(fs.existsSync(shipped), `${where}: the installed package ships lua/manifest.json`);
        assert.ok(!fs.lstatSync(path.join(dir, 'node_modules', 'redvote')).isSymbolicLink(), 'installed from the tarball');
        continue;
      }
      let file;
      if (b.lang === 'ts') {
        const src = path.join(dir, `snippet${n}.mts`);
        fs.writeFileSync(src, b.code);
        const tsc = path.join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');
        const r = run(process.execPath, [
          tsc, '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
          '--typeRoots', path.join(PKG, 'node_modules', '@types'), '--types', 'node', '--outDir', path.join(dir, 'out'), src,
        ], { cwd: dir, env });
        assert.equal(r.status, 0, `${where}: tsc: ${r.out}`);
        file = path.join(dir, 'out', `snippet${n}.mjs`);
      } else {
        const esm = /^import /m.test(b.code);
        file = path.join(dir, `snippet${n}.${esm ? 'mjs' : 'cjs'}`);
        fs.writeFileSync(file, b.code);
      }
      const r = run(process.execPath, [file], { cwd: dir, env, timeout: 30000 });
      assert.equal(r.status, 0, `${where}: exit ${r.status}\n${r.out}`);
      assert.equal(r.stderr, '', `${where}: wrote to stderr`);
      t.diagnostic(`${where}: ${r.stdout.trim().split('\n').join(' | ').slice(0, 300)}`);
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
