// ESM entry: the same objects as the CommonJS entry (index.js). The error
// classes, one per code of the manifest, are in errorClasses (and on the
// default export) so that this file need not change when the codes do.
import redvote from './index.js';
export default redvote;
export const {
  Site,
  Campaign,
  CampaignRegistry,
  ScriptRegistry,
  RedvoteError,
  errorClasses,
  errorClassFor,
  translateError,
  defineScripts,
  runScript,
  runScriptRaw,
  readReply,
  commandName,
  MANIFEST,
  SCRIPTS,
  CODES,
  VERSION,
  LUA_DIR,
  SCRIPT_METHODS,
  REGISTRY_KEY,
  verifyScripts,
} = redvote;
