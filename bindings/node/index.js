'use strict';
// redvote for Node: the redvote Lua scripts (lua/, pinned by the manifest's
// SHA1s) with typed calls over ioredis.
const { MANIFEST, SCRIPTS, CODES, VERSION, LUA_DIR, verify } = require('./lib/manifest');
const { RedvoteError, errorClasses, translateError, errorClassFor } = require('./lib/errors');
const { ScriptRegistry, defineScripts, runRaw, run, readReply, commandName } = require('./lib/scripts');
const { Site, Campaign, CampaignRegistry, SCRIPT_METHODS, REGISTRY_KEY } = require('./lib/calls');

module.exports = {
  Site,
  Campaign,
  CampaignRegistry,
  ScriptRegistry,
  RedvoteError,
  ...errorClasses,
  errorClasses,
  errorClassFor,
  translateError,
  defineScripts,
  runScript: run,
  runScriptRaw: runRaw,
  readReply,
  commandName,
  MANIFEST,
  SCRIPTS,
  CODES,
  VERSION,
  LUA_DIR,
  SCRIPT_METHODS,
  REGISTRY_KEY,
  verifyScripts: verify,
};
