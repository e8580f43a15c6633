'use strict';
// index.d.ts against the manifest and the runtime: every script's typed call
// is declared, the declared codes are the manifest's, every export is
// declared, and tsc --strict accepts test/types/usage.ts.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const redvote = require('..');
const { generated, current, esm, ESM_FILE } = require('../tools/generate');

const ROOT = path.join(__dirname, '..');
const DTS = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8');

function classBody(name) {
  const start = DTS.indexOf(`export declare class ${name} `);
  assert.ok(start >= 0, `index.d.ts declares class ${name}`);
  let depth = 0;
  for (let i = DTS.indexOf('{', start); i < DTS.length; i++) {
    if (DTS[i] === '{') depth++;
    if (DTS[i] === '}' && --depth === 0) return DTS.slice(start, i + 1);
  }
  throw new Error(`class ${name} not closed`);
}

function union(typeName) {
  const m = new RegExp(`export type ${typeName} =([^;]*);`).exec(DTS);
  assert.ok(m, `index.d.ts declares ${typeName}`);
  return [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]).sort();
}

test('the generated error part of index.d.ts and index.mjs are up to date', () => {
  assert.equal(current().part, generated(), 'run node tools/generate.js');
  assert.equal(fs.readFileSync(ESM_FILE, 'utf8'), esm(), 'run node tools/generate.js');
});

test('every manifest script maps to a declared method', () => {
  for (const s of redvote.MANIFEST.scripts) {
    const [cls, method] = redvote.SCRIPT_METHODS[s.name] || [];
    assert.ok(cls, `${s.name}: SCRIPT_METHODS`);
    assert.match(classBody(cls), new RegExp(`\\n  ${method}\\(`), `${s.name}: ${cls}.${method} declared`);
  }
  assert.deepEqual(union('ScriptName'), redvote.MANIFEST.scripts.map((s) => s.name).sort());
});

test('the declared error codes are the manifest codes', () => {
  const manifest = new Set(redvote.MANIFEST.scripts.flatMap((s) => s.errors));
  manifest.add('REDVOTE_INTERNAL');
  assert.deepEqual(union('ErrorCode'), [...manifest].sort());
  for (const code of manifest) {
    const cls = redvote.errorClassFor(code);
    assert.match(classBody(cls.name), new RegExp(`static readonly code: "${code}"`));
  }
});

test('every runtime export is declared', () => {
  for (const name of Object.keys(redvote)) {
    assert.match(DTS, new RegExp(`export declare (const|function|class) ${name}\\b`), `${name} declared`);
  }
});

test('tsc --strict accepts the usage file', (t) => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  assert.ok(fs.existsSync(tsc), 'typescript (a devDependency) is installed: run npm ci');
  const r = spawnSync(
    process.execPath,
    [tsc, '--strict', '--noEmit', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'false', '--types', 'node', path.join(__dirname, 'types', 'usage.ts')],
    { cwd: ROOT, encoding: 'utf8' }
  );
  assert.equal(r.status, 0, `tsc:\n${r.stdout}${r.stderr}`);
});
