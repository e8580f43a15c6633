#!lua flags=no-writes
-- GENERATED from lua/src/site/config.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  config: read a site's settings (configure.lua documents them and changes
  them). Read-only (flagged no-writes: it runs on a replica, and a client
  that WAITs for replicas after writes does not wait for it).

  Input:
    KEYS[1]  site root "<prefix>article:"; the settings hash is
             <prefix>redvote:config
    (no ARGV)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in), as configure answers

  Cost: O(1): one HMGET of the 4 settings.

  Keys: <prefix>redvote:config

  Reply: pairs(string, integer|string)
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG (the settings hash is of the
    wrong type), REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
-- layout: the data-layout version a site or a campaign was written with
-- (docs/versions.md). A campaign keeps it in the field `layout` of its
-- settings hash <ns>campaign, a site in the field `layout` of
-- <prefix>redvote:config; no field is layout 1 (sites written by the seeds,
-- or by a redvote before new sites started at 2; campaigns configured by
-- redvote 0.5 or before).
--
-- These scripts (redvote 0.6) read and write the layouts first..last
-- below, and start a new site or campaign at the last. Site layout 2
-- keeps each group's ordered boards up to date (lib/site_boards): post.lua
-- records it with a site's first article (no id counter, no layout field),
-- upgrade.lua moves a site of layout 1 to it; a site with articles and no
-- field (the seeds' data) is layout 1, and so is a site whose field says 1
-- (asked for before its first post). Campaign layout 3 keeps the per-user
-- counters of fixed-window rate limits in bucketed hashes (lib/limits); a
-- campaign moves to it by campaign_upgrade. A layout outside
-- that range was written by a redvote they do not know: every script, read
-- or write, refuses it (REDVOTE_LAYOUT_VERSION, naming both) before any
-- write, instead of reading or corrupting what it does not understand.
-- (Plain numbers, not a table: a table would be built and collected by
-- every call of every script.)
local SITE_LAYOUT_FIRST, SITE_LAYOUT_LAST, CAMPAIGN_LAYOUT_FIRST, CAMPAIGN_LAYOUT_LAST = 1, 2, 1, 4
-- Campaign layout 4 is layout 3 in mode "buffered" (lib/fold): a redvote
-- that knows no buffer refuses it rather than write past one. Configure
-- moves a campaign between 3 and 4 with its mode; an immediate campaign
-- is at most at CAMPAIGN_LAYOUT_IMMEDIATE.
local CAMPAIGN_LAYOUT_IMMEDIATE, CAMPAIGN_LAYOUT_BUFFERED = 3, 4

-- The layout of the site or campaign (`what`) whose hash `key` holds
-- `stored` in its field `layout` (nil when absent): a number, checked.
local function check_layout(what, key, stored)
  if not stored then return 1 end
  local first, last = CAMPAIGN_LAYOUT_FIRST, CAMPAIGN_LAYOUT_LAST
  if what == 'site' then first, last = SITE_LAYOUT_FIRST, SITE_LAYOUT_LAST end
  local have = stored:match('^[1-9]%d?%d?$') and tonumber(stored)
  if not have then fail('INVALID_CONFIG', key .. ' layout must be a layout version (1..999)') end
  if have < first or have > last then
    fail('LAYOUT_VERSION', what .. ' data layout ' .. have .. ' is not one this redvote knows (' .. first
      .. '..' .. last .. '): it was written by ' .. (have > last and 'a newer' or 'an older')
      .. ' redvote; run that version, or upgrade the data (docs/versions.md)')
  end
  return have
end
-- site_args: the article site's root key and argument count (every site
-- script); an article reference is lib/site_id.

-- The site root "<prefix>article:" (the article id counter), every site
-- script's one key, and ARGV's count (lo..hi, listed in `usage`), of a
-- site whose data layout this script knows (lib/layout): returns the key
-- and <prefix>, from which every other key derives. The same checks
-- as lib/args' one_key and argc, in one function: every site call runs it,
-- and each helper a script defines costs a closure per call.
local function site_root(op, lo, hi, usage)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-8) ~= 'article:' then
    fail('USAGE', op .. ' takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
  local prefix = key:sub(1, -9)
  local config = prefix .. 'redvote:config'
  -- with the settings a post or a vote applies (lib/site_vote_settings),
  -- so that they cost no second read of the hash
  local stored = rcall('HMGET', config, 'layout', 'layout_next', 'vote_score', 'window', 'rankings')
  local layout = check_layout('site', config, stored[1])
  if stored[2] and (stored[2] ~= '2' or layout ~= 1) then
    fail('INVALID_CONFIG', config .. ' layout_next must be 2, on layout 1 (an upgrade under way)')
  end
  return key, prefix, layout, layout == 2 or stored[2] ~= false, stored
end
-- site_config: the site's settings, hash <prefix>redvote:config, where an
-- absent field means its default (below, the one place they are written).
-- configure.lua documents and changes them. Plain locals, no tables: post
-- and vote read them on every call. No function either (each is a closure
-- made on every call): the parser of stored numbers, lib/stored, is
-- included by the libs that parse (site_vote_settings, site_page), and the
-- vote includes those only on the path that needs them.

local DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, DEFAULT_PAGE_SIZE = '432', '604800', '25'
-- (lib/site_vote_settings answers the first two as the numbers 432 and 604800)
-- The ranges configure.lua accepts, and the only stored values post and
-- vote use (anything else in the hash is refused as corrupt).
local VOTE_SCORE_MAX, WINDOW_MIN, WINDOW_MAX = 1000000, 60, 315360000
-- The settings hash is <prefix> .. CONFIG.
local CONFIG = 'redvote:config'
-- site_settings: the site's settings as configure (the writer) and config
-- (the read-only read) answer them: every setting in reply order, its
-- default, and the effective values read from <prefix>redvote:config.
-- Needs rcall (lib/prologue) and the defaults of lib/site_config.

-- Every setting, in reply order, and its default.
local SETTINGS = { 'vote_score', 'window', 'page_size', 'rankings' }
local SETTING_DEFAULTS = { vote_score = DEFAULT_VOTE_SCORE, window = DEFAULT_WINDOW, page_size = DEFAULT_PAGE_SIZE, rankings = '' }

-- The effective settings of the site under `prefix`: setting -> value as
-- stored (one HMGET), the default for those never set.
local function read_site_settings(prefix)
  local stored = rcall('HMGET', prefix .. CONFIG, unpack(SETTINGS))
  local current = {}
  for i, name in ipairs(SETTINGS) do current[name] = stored[i] or SETTING_DEFAULTS[name] end
  return current
end

-- `current` as the reply { "vote_score", v, "window", v, "page_size", v,
-- "rankings", v }.
local function site_settings_reply(current)
  local reply = {}
  for _, name in ipairs(SETTINGS) do
    reply[#reply + 1] = name
    reply[#reply + 1] = current[name]
  end
  return reply
end

local function main()
  local _, prefix = site_root('config', 0, 0, 'no arguments')
  return site_settings_reply(read_site_settings(prefix))
end

-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- is still answered as a stable code, never as a raw Lua error: a key of the
-- wrong type (scripts read or first write every key they use before any
-- other write) as REDVOTE_INVALID_CONFIG, a Redis error or a Lua bug as
-- REDVOTE_INTERNAL.
-- Redis Cluster, a slot being resharded (MIGRATING on the source node,
-- IMPORTING on the target; Redis 7.0's key-by-key MIGRATE): a script's keys
-- may be split between the two nodes, and Redis checks each command inside
-- the script, so a call could fail after its first writes or create keys
-- the source still holds. When KEYS[1] has a hash tag, the script first
-- asks EXISTS of KEYS[1] and KEYS[1]..'#slot-probe', a key of the same slot
-- (and the same ACL key pattern) that is never written: on a node where the
-- slot is stable that is a plain count, and while the slot migrates Redis
-- refuses it (a missing key there is "not local"). The call then answers
-- TRYAGAIN before any read or write, and every client (redis-rs, redvote's
-- Retry) sends it again until the migration ends. An untagged KEYS[1] is
-- for a single Redis (the cluster rule).
do
  local key = KEYS[1] or ''
  local open = key:find('{', 1, true)
  local close = open and key:find('}', open + 1, true)
  if close and close > open + 1 then
    local probe = redis.pcall('EXISTS', key, key .. '#slot-probe')
    if type(probe) == 'table' and probe.err then
      local err = tostring(probe.err)
      if err:find('non local key', 1, true) or err:find('cluster is down', 1, true) then
        return redis.error_reply('TRYAGAIN redvote: the slot of ' .. key ..
          ' is being migrated (or the cluster is down); nothing was written, send the call again')
      end
      return redis.error_reply('REDVOTE_INTERNAL the slot probe (EXISTS) failed: ' .. err)
    end
  end
end
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if res:find('^WRONGTYPE') then
  res = 'REDVOTE_INVALID_CONFIG a key of the wrong type: ' .. res
elseif not res:find('^REDVOTE_') then
  res = 'REDVOTE_INTERNAL ' .. res
end
-- An error reply is a line that clients read as UTF-8 (redis-rs cannot read
-- one that is not, and loses the connection): a detail quoting an argument
-- (binary, or cut at 80 bytes inside a character) keeps its valid UTF-8
-- sequences, and every other byte becomes '?'.
if res:find('[\128-\255]') then
  local out, i, n = {}, 1, #res
  while i <= n do
    local j = res:find('[\128-\255]', i)
    if not j then out[#out + 1] = res:sub(i); break end
    out[#out + 1] = res:sub(i, j - 1)
    -- the sequence starting at j: its length and the range of its second byte
    local c, len, lo, hi = res:byte(j), 0, 0x80, 0xBF
    if c >= 0xC2 and c <= 0xDF then
      len = 2
    elseif c >= 0xE0 and c <= 0xEF then
      len = 3
      if c == 0xE0 then lo = 0xA0 elseif c == 0xED then hi = 0x9F end
    elseif c >= 0xF0 and c <= 0xF4 then
      len = 4
      if c == 0xF0 then lo = 0x90 elseif c == 0xF4 then hi = 0x8F end
    end
    local valid = len > 0 and j + len - 1 <= n
    for k = j + 1, valid and j + len - 1 or j do
      local b = res:byte(k)
      if b < (k == j + 1 and lo or 0x80) or b > (k == j + 1 and hi or 0xBF) then valid = false break end
    end
    if valid then
      out[#out + 1] = res:sub(j, j + len - 1)
      i = j + len
    else
      out[#out + 1] = '?'
      i = j + 1
    end
  end
  res = table.concat(out)
end
return redis.error_reply(res)
