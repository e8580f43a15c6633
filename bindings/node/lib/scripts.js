'use strict';
// The low-level registry: every manifest script as an ioredis custom command
// (defineCommand), sent as EVALSHA with ioredis's own NOSCRIPT fallback
// (EVAL, then EVALSHA again), on a client, a pipeline or a MULTI.
const { SCRIPTS } = require('./manifest');
const { translateError } = require('./errors');
const { parseShape, read } = require('./shape');

const COMMAND_PREFIX = 'redvote_';
const SHAPES = new Map([...SCRIPTS].map(([name, s]) => [name, parseShape(s.reply)]));

/** The ioredis command name of a script: "redvote_campaign_vote". */
function commandName(name) {
  return COMMAND_PREFIX + name;
}

function script(name) {
  const s = SCRIPTS.get(name);
  if (!s) throw new TypeError(`redvote: no script named ${JSON.stringify(name)} in the manifest`);
  return s;
}

function isPipeline(target) {
  return Boolean(target && target.isPipeline);
}

/**
 * Defines every script on an ioredis client (Redis or Cluster) once. Call
 * it before creating pipelines from it; the typed calls do it themselves.
 */
function defineScripts(redis) {
  if (isPipeline(redis)) redis = redis.redis;
  for (const [name, s] of SCRIPTS) {
    const cmd = commandName(name);
    const defined = redis.scriptsSet && redis.scriptsSet[cmd];
    if (defined && defined.sha === s.sha1) continue;
    redis.defineCommand(cmd, {
      numberOfKeys: null, // the call sends numkeys itself
      lua: s.lua,
      readOnly: s.flags.includes('no-writes'), // Cluster: may go to a replica (scaleReads)
    });
    if (redis.scriptsSet[cmd].sha !== s.sha1) {
      throw new Error(`redvote: ioredis hashed ${name} to ${redis.scriptsSet[cmd].sha}, the manifest says ${s.sha1}`);
    }
  }
  return redis;
}

function handled(promise, target) {
  // A call queued on a pipeline settles when exec() runs; a caller who reads
  // only exec()'s result must not get an unhandled rejection. A direct call
  // is left as it is: its caller awaits it.
  if (isPipeline(target)) promise.catch(() => {});
  return promise;
}

/**
 * Runs script `name` with `keys` and `args` (strings or numbers) on `target`
 * (a client, pipeline or multi) and answers the raw reply; a REDVOTE_*
 * refusal rejects with its RedvoteError subclass.
 */
function runRaw(target, name, keys, args = []) {
  script(name);
  const cmd = commandName(name);
  if (typeof target[cmd] !== 'function') {
    defineScripts(target);
    if (isPipeline(target)) {
      // a pipeline copies the client's commands when it is created
      const s = target.redis.scriptsSet[cmd];
      target._shaToScript[s.sha] = s;
      target[cmd] = target.redis[cmd];
    }
  }
  if (isTransaction(target)) return handled(queueInTransaction(target, name, cmd, keys, args), target);
  // the callback form: on a pipeline the command answers the pipeline, and
  // the callback gets this command's own reply when exec() runs
  const p = new Promise((resolve, reject) => {
    target[cmd](keys.length, ...keys, ...args.map(String), (err, value) =>
      err ? reject(translateError(err)) : resolve(value)
    );
  });
  return handled(p, target);
}

function isTransaction(target) {
  return isPipeline(target) && target._transactions > 0;
}

/**
 * A script queued in a MULTI: ioredis answers "QUEUED" to the command and
 * the reply comes in EXEC's array, so the call's promise is settled from
 * exec()'s result. Inside MULTI a NOSCRIPT would abort the transaction, so
 * exec() first loads the scripts the server lacks (SCRIPT EXISTS, then
 * SCRIPT LOAD of the missing ones: one more round trip).
 */
function queueInTransaction(target, name, cmd, keys, args) {
  let state = target.__redvote;
  if (!state) {
    state = target.__redvote = { calls: [], scripts: new Map() };
    const exec = target.exec;
    target.exec = function redvoteExec(callback) {
      const done = (async () => {
        const client = target.redis;
        const entries = [...state.scripts.values()];
        const exists = await client.script('EXISTS', ...entries.map((s) => s.sha1));
        for (let i = 0; i < entries.length; i++) if (!exists[i]) await client.script('LOAD', entries[i].lua);
        const results = await exec.call(target);
        const before = (c) => target._queue.slice(0, target._queue.indexOf(c)).filter((q) => q.name !== 'multi').length;
        for (const call of state.calls) {
          const r = results && results[before(call.command)];
          if (!r) call.reject(new Error('redvote: the transaction did not run (EXEC answered no replies)'));
          else if (r[0]) call.reject(translateError(r[0]));
          else call.resolve(r[1]);
        }
        return results;
      })();
      done.catch((err) => state.calls.forEach((c) => c.reject(err)));
      if (callback) done.then((v) => callback(null, v), (e) => callback(e));
      return done;
    };
  }
  state.scripts.set(name, SCRIPTS.get(name));
  return new Promise((resolve, reject) => {
    const call = { resolve, reject };
    target[cmd](keys.length, ...keys, ...args.map(String), (err) => {
      if (err) reject(translateError(err));
    });
    call.command = target._queue[target._queue.length - 1];
    state.calls.push(call);
  });
}

/** Reads a raw reply of script `name` by the manifest's reply shape. */
function readReply(name, raw) {
  script(name);
  return read(SHAPES.get(name), raw);
}

/** runRaw, then the reply read by its manifest shape (camelCase fields). */
function run(target, name, keys, args = []) {
  return handled(runRaw(target, name, keys, args).then((raw) => readReply(name, raw)), target);
}

class ScriptRegistry {
  /** @param client an ioredis Redis, Cluster, pipeline or multi */
  constructor(client) {
    this.client = client;
    defineScripts(client);
  }
  get names() {
    return [...SCRIPTS.keys()];
  }
  get(name) {
    return script(name);
  }
  sha(name) {
    return script(name).sha1;
  }
  run(name, keys, args, target = this.client) {
    return run(target, name, keys, args);
  }
  runRaw(name, keys, args, target = this.client) {
    return runRaw(target, name, keys, args);
  }
  /** SCRIPT LOAD of every script on the client's server; answers name -> SHA1. */
  async load(target = this.client) {
    const out = {};
    for (const [name, s] of SCRIPTS) out[name] = await target.script('LOAD', s.lua);
    return out;
  }
}

module.exports = { ScriptRegistry, defineScripts, runRaw, run, readReply, commandName, isPipeline, SHAPES };
