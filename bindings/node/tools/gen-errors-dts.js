'use strict';
// Writes the error part of index.d.ts (between the GENERATED markers) from
// the manifest's codes and the names lib/errors.js gives them:
//   node tools/gen-errors-dts.js          rewrite it
//   node tools/gen-errors-dts.js --check  exit 1 if it is stale
const fs = require('node:fs');
const path = require('node:path');
const { CODES, MANIFEST } = require('../lib/manifest');
const { className } = require('../lib/errors');

function generated() {
  const names = MANIFEST.scripts.map((s) => JSON.stringify(s.name)).sort();
  const lines = ['// GENERATED ERRORS BEGIN', '/** Every script of the manifest. */'];
  lines.push(`export type ScriptName =\n  | ${names.join('\n  | ')};`);
  lines.push('/** Every REDVOTE_* code the scripts answer (the manifest\'s, and INTERNAL). */');
  lines.push(`export type ErrorCode =\n  | ${CODES.map((c) => JSON.stringify(c)).join('\n  | ')};`);
  for (const code of CODES) {
    lines.push(`/** ${code} */`);
    lines.push(`export declare class ${className(code)} extends RedvoteError {`);
    lines.push(`  constructor(detail: string, cause?: Error);`);
    lines.push(`  static readonly code: ${JSON.stringify(code)};`);
    lines.push(`  readonly code: ${JSON.stringify(code)};`);
    if (code === 'REDVOTE_RATE_LIMITED') {
      lines.push('  /** The JSON detail: the rule, seconds to wait (-1: not in this campaign), what each rule leaves. */');
      lines.push('  readonly data: { rule: string; retry_after: number; remaining: Record<string, number> } | undefined;');
    }
    lines.push('}');
  }
  lines.push('export declare const errorClasses: {');
  for (const code of CODES) lines.push(`  ${className(code)}: typeof ${className(code)};`);
  lines.push('};');
  lines.push('// GENERATED ERRORS END');
  return lines.join('\n');
}

const FILE = path.join(__dirname, '..', 'index.d.ts');
function current() {
  const text = fs.readFileSync(FILE, 'utf8');
  const m = /\/\/ GENERATED ERRORS BEGIN[\s\S]*?\/\/ GENERATED ERRORS END/.exec(text);
  return { text, part: m && m[0] };
}

if (require.main === module) {
  const { text, part } = current();
  if (!part) throw new Error('index.d.ts has no GENERATED ERRORS markers');
  if (process.argv.includes('--check')) {
    if (part !== generated()) {
      console.error('index.d.ts: the error part is stale; run node tools/gen-errors-dts.js');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(FILE, text.replace(part, generated()));
  }
}

module.exports = { generated, current };
