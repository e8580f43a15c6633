'use strict';
// The shipped scripts are the manifest's: SHA1 of every file, the SHA1
// ioredis sends, the package's files list, the version, and the error
// classes generated from the manifest's codes.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const Redis = require('ioredis');
const redvote = require('..');

const LUA = path.join(__dirname, '..', 'lua');
const manifest = JSON.parse(fs.readFileSync(path.join(LUA, 'manifest.json'), 'utf8'));

test('every shipped script has the SHA1 the manifest gives it', () => {
  assert.ok(manifest.scripts.length > 0);
  for (const s of manifest.scripts) {
    const bytes = fs.readFileSync(path.join(LUA, path.basename(s.file)));
    const sha = crypto.createHash('sha1').update(bytes).digest('hex');
    assert.equal(sha, s.sha1, `${s.file}`);
  }
  const luaFiles = fs.readdirSync(LUA).filter((f) => f.endsWith('.lua')).sort();
  assert.deepEqual(luaFiles, manifest.scripts.map((s) => path.basename(s.file)).sort(), 'lua/ holds exactly the manifest scripts');
  assert.deepEqual(redvote.verifyScripts(), []);
});

test('a changed script copy is caught at load', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redvote-lua-'));
  try {
    for (const f of fs.readdirSync(LUA)) fs.copyFileSync(path.join(LUA, f), path.join(dir, f));
    assert.deepEqual(redvote.verifyScripts(dir), []);
    const victim = path.join(dir, 'campaign_vote.lua');
    fs.appendFileSync(victim, '-- changed\n');
    const bad = redvote.verifyScripts(dir);
    assert.equal(bad.length, 1);
    assert.equal(bad[0].name, 'campaign_vote');
    // the module itself refuses to load from such a directory
    const pkg = fs.mkdtempSync(path.join(os.tmpdir(), 'redvote-pkg-'));
    try {
      fs.cpSync(path.join(__dirname, '..', 'lib'), path.join(pkg, 'lib'), { recursive: true });
      fs.cpSync(dir, path.join(pkg, 'lua'), { recursive: true });
      assert.throws(() => require(path.join(pkg, 'lib', 'manifest.js')), /campaign_vote\.lua has SHA1 .* the manifest says/);
    } finally {
      fs.rmSync(pkg, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('ioredis sends the manifest SHA1 for every script', () => {
  const r = new Redis({ lazyConnect: true });
  redvote.defineScripts(r);
  for (const s of manifest.scripts) {
    assert.equal(r.scriptsSet[redvote.commandName(s.name)].sha, s.sha1, s.name);
  }
  r.disconnect();
});

test('the package ships the scripts and has their version', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'redvote');
  assert.ok(pkg.files.includes('lua/'), 'files lists lua/');
  assert.match(pkg.dependencies.ioredis, /^5\.\d+\.\d+$/, 'ioredis pinned to a 5.x version');
  assert.equal(pkg.version, manifest.redvote, 'package version = the scripts\' version');
  assert.equal(redvote.VERSION, manifest.redvote);
});

test('one error class per code of the manifest, plus INTERNAL', () => {
  const codes = new Set(manifest.scripts.flatMap((s) => s.errors));
  codes.add('REDVOTE_INTERNAL');
  assert.deepEqual([...redvote.CODES].sort(), [...codes].sort());
  for (const code of codes) {
    const cls = redvote.errorClassFor(code);
    assert.ok(cls, code);
    assert.equal(cls.code, code);
    const e = redvote.translateError(new Error(`${code} some detail`));
    assert.ok(e instanceof cls && e instanceof redvote.RedvoteError && e instanceof Error, code);
    assert.equal(e.code, code);
    assert.equal(e.detail, 'some detail');
    assert.equal(redvote[cls.name], cls, `${cls.name} exported`);
  }
  const other = new Error('ERR unknown command');
  assert.equal(redvote.translateError(other), other, 'other errors pass through');
  const rl = redvote.translateError(new Error('REDVOTE_RATE_LIMITED {"rule":"r","retry_after":5,"remaining":{"r":0}}'));
  assert.equal(rl.data.rule, 'r');
});

test('ESM entry exports the same objects', async () => {
  const esm = await import('../index.mjs');
  const cjs = require('..');
  assert.equal(esm.default, cjs);
  for (const k of Object.keys(cjs)) assert.equal(esm[k], cjs[k], k);
});

test('a missing server binary fails with how to install one', () => {
  const { spawnSync } = require('node:child_process');
  const r = spawnSync(
    process.execPath,
    ['-e', "require('./test/helpers/server').startServer().then(() => process.exit(0), (e) => { console.error(e.message); process.exit(3); })"],
    { cwd: path.join(__dirname, '..'), env: { ...process.env, REDVOTE_SERVER: '/nonexistent/redis-server' }, encoding: 'utf8' }
  );
  assert.equal(r.status, 3);
  assert.match(r.stderr, /apt-get install -y redis-server/);
});

test('the raw scripts are importable by path', () => {
  const m = require('redvote/lua/manifest.json');
  assert.equal(m.redvote, manifest.redvote);
});
