'use strict';
// Copies the repository's scripts (../../lua/*.lua and manifest.json, the
// only committed copies) into ./lua, the directory the package loads and
// ships. Run by npm before pack, publish, a local install and the tests
// (prepack, prepare, pretest) and by test.sh. Outside a checkout (an
// unpacked tarball) ./lua is already the shipped copy and is kept.
const fs = require('node:fs');
const path = require('node:path');

const PKG = path.join(__dirname, '..');
const SOURCE = path.join(PKG, '..', '..', 'lua');
const TARGET = path.join(PKG, 'lua');

/** The files the package ships from `dir`: every script and the manifest. */
function shippedFiles(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.lua') || f === 'manifest.json').sort();
}

// The package sits in a checkout when ../../lua/manifest.json is there and
// ../../bindings/node is this directory (not the lua/ of a project that
// installed the package under node_modules/).
function inCheckout() {
  const back = path.join(SOURCE, '..', 'bindings', 'node');
  return fs.existsSync(path.join(SOURCE, 'manifest.json')) && fs.existsSync(back) && fs.realpathSync(back) === fs.realpathSync(PKG);
}

/**
 * Makes ./lua hold exactly the repository's scripts and manifest. A file
 * already the same is left alone and a changed one replaced by a rename, so
 * a process loading the package meanwhile (tests run side by side) never
 * reads half a file. Answers {written, removed, kept}.
 */
function copy() {
  if (!inCheckout()) {
    if (fs.existsSync(path.join(TARGET, 'manifest.json'))) return { written: 0, removed: 0, kept: true };
    throw new Error(`redvote: ${SOURCE} is not a checkout's lua/ and ./lua is absent: build the package from a checkout of the repository`);
  }
  fs.mkdirSync(TARGET, { recursive: true });
  const files = shippedFiles(SOURCE);
  let written = 0;
  for (const f of files) {
    const bytes = fs.readFileSync(path.join(SOURCE, f));
    const to = path.join(TARGET, f);
    if (fs.existsSync(to) && fs.readFileSync(to).equals(bytes)) continue;
    const tmp = `${to}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, to);
    written++;
  }
  // a script the repository dropped (or anything else) does not linger
  let removed = 0;
  for (const f of fs.readdirSync(TARGET)) {
    if (files.includes(f)) continue;
    fs.rmSync(path.join(TARGET, f), { recursive: true, force: true });
    removed++;
  }
  return { written, removed, kept: false };
}

if (require.main === module) {
  try {
    copy();
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}

module.exports = { copy, inCheckout, shippedFiles, SOURCE, TARGET };
