'use strict';
// One error class per REDVOTE_* code, generated from the code table (the
// manifest's codes), never copied by hand: REDVOTE_INVALID_USER is
// InvalidUserError, a subclass of RedvoteError with .code and .detail.
const { CODES } = require('./manifest');
const { camel } = require('./shape');

class RedvoteError extends Error {
  constructor(code, detail, cause) {
    super(detail ? `${code} ${detail}` : code, cause ? { cause } : undefined);
    this.name = 'RedvoteError';
    /** The code, e.g. "REDVOTE_INVALID_USER". */
    this.code = code;
    /** The rest of the message: the detail in words (JSON for RATE_LIMITED). */
    this.detail = detail;
  }
}

function className(code) {
  return (
    code
      .replace(/^REDVOTE_/, '')
      .toLowerCase()
      .split('_')
      .map((w) => w[0].toUpperCase() + w.slice(1))
      .join('') + 'Error'
  );
}

const errorClasses = {};
const byCode = new Map();
for (const code of CODES) {
  const name = className(code);
  const cls = {
    [name]: class extends RedvoteError {
      constructor(detail, cause) {
        super(code, detail, cause);
        this.name = name;
      }
    },
  }[name];
  Object.defineProperty(cls, 'code', { value: code });
  errorClasses[name] = cls;
  byCode.set(code, cls);
}

/**
 * The data of a RATE_LIMITED refusal, its JSON detail with camelCase
 * fields: {rule, retryAfter, remaining}. `retry_after`, the script's own
 * name, stays readable as a deprecated alias (not enumerable, so not in
 * JSON.stringify or deepEqual) until 1.0.
 */
Object.defineProperty(errorClasses.RateLimitedError.prototype, 'data', {
  get() {
    let raw;
    try {
      raw = JSON.parse(this.detail);
    } catch {
      return undefined;
    }
    if (!raw || typeof raw !== 'object') return undefined;
    const data = Object.fromEntries(Object.entries(raw).map(([k, v]) => [camel(k), v]));
    if ('retry_after' in raw) Object.defineProperty(data, 'retry_after', { value: raw.retry_after, enumerable: false });
    return data;
  },
});

const PATTERN = /^(REDVOTE_[A-Z_]+)(?: ([\s\S]*))?$/;

/**
 * The RedvoteError for a Redis error whose message is a REDVOTE_* refusal;
 * any other error is answered as it is.
 */
function translateError(err) {
  if (!err || err instanceof RedvoteError || typeof err.message !== 'string') return err;
  const m = PATTERN.exec(err.message);
  if (!m) return err;
  const cls = byCode.get(m[1]);
  if (cls) return new cls(m[2] ?? '', err);
  return new RedvoteError(m[1], m[2] ?? '', err);
}

function errorClassFor(code) {
  return byCode.get(code);
}

module.exports = { RedvoteError, errorClasses, translateError, errorClassFor, className };
