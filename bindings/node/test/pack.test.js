'use strict';
// What npm pack ships: package/lua/ holds every script of the repository's
// lua/manifest.json, each with the manifest's SHA1, and the manifest itself,
// nothing else; the scripts are committed once, at the repository's root.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawnSync } = require('node:child_process');

const PKG = path.join(__dirname, '..');
const ROOT_LUA = path.join(PKG, '..', '..', 'lua');

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...opts });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.error || ''}${r.stdout}${r.stderr}`);
  return r.stdout;
}

test('npm pack ships every script of lua/manifest.json with its SHA1, and nothing else under lua/', () => {
  const manifestBytes = fs.readFileSync(path.join(ROOT_LUA, 'manifest.json'));
  const manifest = JSON.parse(manifestBytes);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redvote-pack-'));
  try {
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PKG }));
    const tarball = path.join(dir, packed.filename);
    const listed = run('tar', ['-tzf', tarball]).split('\n').filter((l) => l.startsWith('package/lua/'));
    const expected = [...manifest.scripts.map((s) => `package/lua/${path.basename(s.file)}`), 'package/lua/manifest.json'];
    assert.deepEqual(listed.sort(), expected.sort(), 'package/lua/ holds the manifest\'s scripts and the manifest, nothing else');

    run('tar', ['-xzf', tarball, '-C', dir]);
    const shipped = path.join(dir, 'package', 'lua');
    assert.ok(fs.readFileSync(path.join(shipped, 'manifest.json')).equals(manifestBytes), 'the shipped manifest is the repository\'s');
    for (const s of manifest.scripts) {
      const bytes = fs.readFileSync(path.join(shipped, path.basename(s.file)));
      assert.equal(crypto.createHash('sha1').update(bytes).digest('hex'), s.sha1, `${s.file} ships with the manifest's SHA1`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the scripts are committed once: bindings/node/lua/ is ignored and tracks nothing', () => {
  const git = (...args) => spawnSync('git', args, { cwd: PKG, encoding: 'utf8' });
  assert.equal(git('ls-files', 'lua').stdout, '', 'no committed file under bindings/node/lua/');
  assert.equal(git('check-ignore', '-q', 'lua/manifest.json').status, 0, 'bindings/node/lua/ is gitignored');
});
