'use strict';
// The scripts and their manifest, as shipped in ../lua (copied from the
// repository's lua/, the only committed copies, by tools/copy-lua.js when the
// package is packed, installed from a checkout or tested). Every file is
// checked against the manifest's SHA1 when this module loads: a package
// whose scripts differ from its manifest refuses to load.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const LUA_DIR = path.join(__dirname, '..', 'lua');

function sha1(bytes) {
  return crypto.createHash('sha1').update(bytes).digest('hex');
}

/**
 * Reads manifest.json and every script it names from `dir`; answers the
 * manifest and the list of mismatches ({name, file, expected, actual}).
 */
function readScripts(dir = LUA_DIR) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  const scripts = new Map();
  const mismatches = [];
  for (const entry of manifest.scripts) {
    const file = path.join(dir, path.basename(entry.file));
    const bytes = fs.readFileSync(file);
    const actual = sha1(bytes);
    const lua = bytes.toString('utf8');
    if (actual !== entry.sha1 || !Buffer.from(lua, 'utf8').equals(bytes)) {
      mismatches.push({ name: entry.name, file, expected: entry.sha1, actual });
    }
    scripts.set(entry.name, Object.freeze({ ...entry, lua }));
  }
  return { manifest, scripts, mismatches };
}

function verify(dir = LUA_DIR) {
  const { mismatches } = readScripts(dir);
  return mismatches;
}

function load() {
  try {
    return readScripts(LUA_DIR);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    throw new Error(
      `redvote: ${err.path} is missing: in a checkout, npm run copy-lua copies the repository's lua/ into the package`,
      { cause: err }
    );
  }
}

const loaded = load();
if (loaded.mismatches.length) {
  const m = loaded.mismatches[0];
  throw new Error(
    `redvote: ${m.file} has SHA1 ${m.actual}, the manifest says ${m.expected} ` +
      `(${loaded.mismatches.length} script(s) differ from lua/manifest.json; ` +
      'in a checkout, npm run copy-lua copies the repository\'s lua/ again)'
  );
}

const MANIFEST = loaded.manifest;
const SCRIPTS = loaded.scripts;

/** Every REDVOTE_* code a script can answer: the manifest's, plus INTERNAL
 * (any script, for a Redis error inside it or a bug: docs/errors.md). */
const CODES = Object.freeze(
  [...new Set([...MANIFEST.scripts.flatMap((s) => s.errors), 'REDVOTE_INTERNAL'])].sort()
);

module.exports = { LUA_DIR, MANIFEST, SCRIPTS, CODES, VERSION: MANIFEST.redvote, sha1, readScripts, verify };
