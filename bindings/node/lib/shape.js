'use strict';
// Reads a script's reply by the shape its manifest entry declares
// (docs/manifest.md): `{a: T, ...}` an array of fixed positions, `{..., T...}`
// one whose tail repeats, `list(T)`, `pairs(K, V)` (a flat field, value list,
// read as an object), `T|nil`, `enum(a|b)`, `json` (parsed), `integer`,
// `string`. Field names become camelCase.

function camel(name) {
  return name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
}

function parseShape(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const word = () => {
    ws();
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (!m) throw new Error(`shape: a name expected at ${i} of ${text}`);
    i += m[0].length;
    return m[0];
  };
  const eat = (s) => {
    ws();
    if (text.slice(i, i + s.length) !== s) throw new Error(`shape: "${s}" expected at ${i} of ${text}`);
    i += s.length;
  };
  const peek = (s) => {
    ws();
    return text.slice(i, i + s.length) === s;
  };
  function type() {
    const alts = [atom()];
    while (peek('|')) {
      eat('|');
      alts.push(atom());
    }
    if (alts.length === 1) return alts[0];
    return { kind: 'union', alts };
  }
  function atom() {
    if (peek('{')) {
      eat('{');
      const fields = [];
      let tail = null;
      for (;;) {
        ws();
        const save = i;
        let field = null;
        if (/^[A-Za-z_]/.test(text.slice(i))) {
          const name = word();
          if (peek(':')) {
            eat(':');
            field = { name, type: type() };
          } else {
            i = save;
          }
        }
        if (!field) {
          const t = type();
          eat('...');
          tail = t;
        } else {
          fields.push(field);
        }
        if (peek(',')) {
          eat(',');
          continue;
        }
        eat('}');
        break;
      }
      return { kind: 'record', fields, tail };
    }
    const name = word();
    if (name === 'list') {
      eat('(');
      const of = type();
      eat(')');
      return { kind: 'list', of };
    }
    if (name === 'pairs') {
      eat('(');
      const k = type();
      eat(',');
      const v = type();
      eat(')');
      return { kind: 'pairs', k, v };
    }
    if (name === 'enum') {
      eat('(');
      const start = i;
      while (text[i] !== ')') i++;
      const values = text.slice(start, i).split('|');
      eat(')');
      return { kind: 'enum', values };
    }
    if (['integer', 'string', 'nil', 'json'].includes(name)) return { kind: name };
    throw new Error(`shape: unknown type ${name} in ${text}`);
  }
  const t = type();
  ws();
  if (i !== text.length) throw new Error(`shape: trailing text at ${i} of ${text}`);
  return t;
}

function read(shape, value) {
  switch (shape.kind) {
    case 'union': {
      if (value === null && shape.alts.some((a) => a.kind === 'nil')) return null;
      const alts = shape.alts.filter((a) => a.kind !== 'nil');
      return alts.length === 1 ? read(alts[0], value) : value;
    }
    case 'nil':
      return null;
    case 'integer':
      return typeof value === 'string' ? Number(value) : value;
    case 'string':
    case 'enum':
      // a number where the manifest declares a string is read as its text
      return typeof value === 'number' ? String(value) : value;
    case 'json':
      return JSON.parse(value);
    case 'list':
      return Array.isArray(value) ? value.map((v) => read(shape.of, v)) : value;
    case 'pairs': {
      const out = {};
      for (let j = 0; j + 1 < value.length; j += 2) out[value[j]] = read(shape.v, value[j + 1]);
      return out;
    }
    case 'record': {
      const out = {};
      shape.fields.forEach((f, j) => {
        out[camel(f.name)] = j < value.length ? read(f.type, value[j]) : f.type.kind === 'union' ? null : undefined;
      });
      if (shape.tail) {
        const tail = value.slice(shape.fields.length);
        out.rest = tail.map((v) => read(shape.tail, v));
      }
      return out;
    }
    default:
      throw new Error(`shape: ${shape.kind}`);
  }
}

/**
 * Where a raw reply departs from its shape: a list of "path: expected T,
 * got V" (empty when it conforms). A record may lack trailing fields whose
 * type admits nil (campaign_vote's replay marker).
 */
function mismatches(shape, value, at = '$') {
  const got = () => JSON.stringify(value);
  const out = [];
  switch (shape.kind) {
    case 'integer':
      if (!Number.isInteger(value)) out.push(`${at}: expected integer, got ${got()}`);
      break;
    case 'string':
      if (typeof value !== 'string') out.push(`${at}: expected string, got ${got()}`);
      break;
    case 'nil':
      if (value !== null) out.push(`${at}: expected nil, got ${got()}`);
      break;
    case 'json':
      try {
        JSON.parse(value);
      } catch {
        out.push(`${at}: expected json, got ${got()}`);
      }
      break;
    case 'enum':
      if (!shape.values.includes(value)) out.push(`${at}: expected enum(${shape.values.join('|')}), got ${got()}`);
      break;
    case 'union':
      if (!shape.alts.some((a) => mismatches(a, value, at).length === 0)) out.push(`${at}: expected ${shape.alts.map((a) => a.kind).join('|')}, got ${got()}`);
      break;
    case 'list':
      if (!Array.isArray(value)) out.push(`${at}: expected list, got ${got()}`);
      else value.forEach((v, i) => out.push(...mismatches(shape.of, v, `${at}[${i}]`)));
      break;
    case 'pairs':
      if (!Array.isArray(value) || value.length % 2) out.push(`${at}: expected pairs, got ${got()}`);
      else
        for (let i = 0; i < value.length; i += 2) {
          out.push(...mismatches(shape.k, value[i], `${at}[${i}]`), ...mismatches(shape.v, value[i + 1], `${at}[${i + 1}]`));
        }
      break;
    case 'record': {
      if (!Array.isArray(value)) {
        out.push(`${at}: expected an array, got ${got()}`);
        break;
      }
      shape.fields.forEach((f, i) => {
        if (i >= value.length) {
          const nullable = f.type.kind === 'union' && f.type.alts.some((a) => a.kind === 'nil');
          if (!nullable) out.push(`${at}.${f.name}: missing`);
        } else {
          out.push(...mismatches(f.type, value[i], `${at}.${f.name}`));
        }
      });
      if (shape.tail) value.slice(shape.fields.length).forEach((v, i) => out.push(...mismatches(shape.tail, v, `${at}[${shape.fields.length + i}]`)));
      else if (value.length > shape.fields.length) out.push(`${at}: ${value.length - shape.fields.length} elements more than its fields`);
      break;
    }
    default:
      out.push(`${at}: unknown shape ${shape.kind}`);
  }
  return out;
}

module.exports = { parseShape, read, camel, mismatches };
