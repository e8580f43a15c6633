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

function handled(promise) {
  // A call queued on a pipeline settles when exec() runs; a caller who reads
  // only exec()'s result must not get an unhandled rejection.
  promise.catch(() => {});
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
  const p = target[cmd](keys.length, ...keys, ...args.map(String));
  return handled(Promise.resolve(p).catch((err) => Promise.reject(translateError(err))));
}

/** Reads a raw reply of script `name` by the manifest's reply shape. */
function readReply(name, raw) {
  script(name);
  return read(SHAPES.get(name), raw);
}

/** runRaw, then the reply read by its manifest shape (camelCase fields). */
function run(target, name, keys, args = []) {
  return handled(runRaw(target, name, keys, args).then((raw) => readReply(name, raw)));
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
