'use strict';
// Runs every code block of docs/node.md and of the README the way a reader
// would: in a new project made by `npm init -y` (a default package.json, so
// a .js file is CommonJS), each js or ts block saved under the name its
// first line gives ("// save as NAME"), each js file run with node, each sh
// block run with bash there (the install block first; a ts file is compiled
// and run by the sh block that follows it), in order, against a throwaway
// server (REDVOTE_URL). Any failing block fails the test.
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
const SAVE_AS = /^\/\/ save as ([\w.-]+\.(?:js|mjs|cjs|ts|mts|cts))\n/;

function blocks(text, doc) {
  const out = [];
  const re = /^```([a-z]*)\n([\s\S]*?)^```$/gm;
  let m;
  while ((m = re.exec(text))) out.push({ lang: m[1], code: m[2], where: `${doc}:${text.slice(0, m.index).split('\n').length}` });
  return out;
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 180000, ...opts });
  return { status: r.status, out: `${r.error || ''}${r.stdout || ''}${r.stderr || ''}`, stdout: r.stdout || '', stderr: r.stderr || '' };
}

/** The docs' blocks, each js / ts one with the file name it is saved as. */
function docBlocks() {
  const all = [
    ...blocks(fs.readFileSync(DOC, 'utf8'), 'docs/node.md'),
    ...blocks(fs.readFileSync(path.join(PKG, 'README.md'), 'utf8'), 'bindings/node/README.md'),
  ];
  assert.ok(all.length >= 5, 'docs/node.md has its code blocks');
  const names = new Set();
  for (const b of all) {
    assert.ok(['sh', 'js', 'ts'].includes(b.lang), `${b.where}: a block of ${b.lang || 'no language'} this test cannot run`);
    if (b.lang === 'sh') continue;
    const m = SAVE_AS.exec(b.code);
    assert.ok(m, `${b.where}: a ${b.lang} block starts with "// save as NAME" (the file a reader saves it as)`);
    assert.ok(!names.has(m[1]), `${b.where}: ${m[1]} named twice`);
    names.add(m[1]);
    b.file = m[1];
  }
  for (const [i, b] of all.entries()) {
    if (b.lang !== 'ts') continue;
    const runner = all.slice(i + 1).find((a) => a.lang === 'sh');
    assert.ok(runner && runner.code.includes(b.file), `${b.where}: an sh block after it compiles and runs ${b.file}`);
  }
  return all;
}

test('every code block of docs/node.md (and of the README) runs as pasted in an npm init -y project', async (t) => {
  const all = docBlocks();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redvote-docs-'));
  const server = await startServer();
  try {
    const env = {
      ...process.env,
      REDVOTE_URL: server.url,
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const init = run('npm', ['init', '-y'], { cwd: dir, env });
    assert.equal(init.status, 0, `npm init -y: ${init.out}`);
    let installed = false;
    for (const b of all) {
      if (b.lang === 'sh') {
        const script = b.code.replaceAll('/path/to/redvote', REPO);
        const r = run('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, env });
        assert.equal(r.status, 0, `${b.where}: ${r.out}`);
        if (!installed) {
          const pkg = path.join(dir, 'node_modules', 'redvote');
          assert.ok(fs.existsSync(path.join(pkg, 'lua', 'manifest.json')), `${b.where}: the installed package holds lua/manifest.json`);
          assert.ok(!fs.lstatSync(pkg).isSymbolicLink(), `${b.where}: installed as a copy, not a link to the checkout`);
          installed = true;
        }
        t.diagnostic(`${b.where}: ${r.stdout.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}`);
        continue;
      }
      fs.writeFileSync(path.join(dir, b.file), b.code);
      if (b.lang === 'ts') continue; // the sh block after it compiles and runs it
      const r = run(process.execPath, [b.file], { cwd: dir, env, timeout: 30000 });
      assert.equal(r.status, 0, `${b.where}: node ${b.file}: exit ${r.status}\n${r.out}`);
      assert.equal(r.stderr, '', `${b.where}: node ${b.file} wrote to stderr`);
      t.diagnostic(`${b.where}: ${r.stdout.trim().split('\n').join(' | ').slice(0, 300)}`);
    }
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
