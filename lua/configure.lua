#!lua
-- GENERATED from lua/src/site/configure.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
-- redvote 0.6.0
--[[
  configure: change a site's settings, stored in Redis under the site's
  prefix so that every client of the site applies the same ones, and answer
  them all. Without arguments it changes nothing and answers them (as
  config.lua does, which is flagged no-writes: read them with that).

  Settings (hash <prefix>redvote:config; an absent field means the default):
    vote_score  score one net vote is worth, integer 1..1000000 (default 432
                = 86400/200). Fixed once the site has articles: changing it
                would break score = time + vote_score * (votes - downvotes).
    window      voting window in seconds after the publish time, integer
                60..315360000 (default 604800, one week). Once the site has
                articles it can only be lowered: a longer one would reopen
                articles whose voted:ID sets already expired.
    page_size   default articles per page, integer 1..100 (default 25)
    rankings    extra rankings kept beside score:, comma-separated subset of
                "hot,best" or "" (default ""). Articles enter hot:/best: when
                posted or voted on after the ranking is switched on.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1..]  pairs  <config_field/text, repeat 0..4>  field, value, field,
             value, ... (none: only read); at most the 4 settings, 8 arguments
             (REDVOTE_USAGE beyond)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in)

  Keys: <prefix>redvote:config

  Reply: pairs(string, integer|string)
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG, REDVOTE_CONFIG_LOCKED,
    REDVOTE_LAYOUT_VERSION.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
-- integer_arg: an integer argument in lo..hi, as decimal digits only (no
-- sign, no exponent, no leading zero when lo >= 1), returned as a number.
-- `what` replaces "an integer in lo..hi" in the refusal when given; `code`
-- replaces INVALID_NUMBER (a setting refuses with INVALID_CONFIG). The
-- detail names the argument and quotes the value, cut to 80 bytes.
local function integer_arg(s, name, lo, hi, what, code)
  local digits = lo >= 1 and '^[1-9]%d*$' or '^%d+$'
  if not s:find(digits) or #s > #string.format('%d', hi) or tonumber(s) < lo or tonumber(s) > hi then
    what = what or ('an integer in ' .. lo .. '..' .. hi)
    fail(code or 'INVALID_NUMBER', name .. ' must be ' .. what .. ', got "' .. s:sub(1, 80) .. '"')
  end
  return tonumber(s)
end
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

local limits = { vote_score = { 1, VOTE_SCORE_MAX }, window = { WINDOW_MIN, WINDOW_MAX }, page_size = { 1, 100 } }

-- "" or a comma-separated subset of hot,best (no empty items).
local function rankings_ok(value)
  if value:find(',,') or value:find('^,') or value:find(',$') then return false end
  for item in value:gmatch('[^,]+') do
    if item ~= 'hot' and item ~= 'best' then return false end
  end
  return true
end

local function main()
  local root, prefix = site_root('configure', 0, 8, 'field, value pairs, at most 4 (8 arguments)')
  if #ARGV % 2 ~= 0 then fail('USAGE', 'configure takes field, value pairs, at most 4 (8 arguments)') end
  local current = read_site_settings(prefix)

  local updates = {}
  for i = 1, #ARGV, 2 do
    local field, value = ARGV[i], ARGV[i + 1]
    if field == 'rankings' then
      if not rankings_ok(value) then
        fail('INVALID_CONFIG', 'rankings must be a comma-separated subset of hot,best, got "' .. value:sub(1, 80) .. '"')
      end
    elseif limits[field] then
      integer_arg(value, field, limits[field][1], limits[field][2], nil, 'INVALID_CONFIG')
    else
      fail('INVALID_CONFIG', 'unknown setting "' .. field:sub(1, 80) .. '" (vote_score, window, page_size, rankings)')
    end
    if field == 'vote_score' and value ~= current.vote_score and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'vote_score is fixed once the site has articles (' .. current.vote_score .. ')')
    end
    -- A longer window would reopen articles whose voted:ID sets already
    -- expired (their voters could vote again): it can only shrink once
    -- articles exist.
    if field == 'window' and tonumber(value) > (tonumber(current.window) or 0) and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'window can only be lowered once the site has articles (' .. current.window .. ')')
    end
    updates[#updates + 1] = field
    updates[#updates + 1] = value
    current[field] = value
  end

  -- validated: the writes start here
  if #updates > 0 then rcall('HSET', prefix .. CONFIG, unpack(updates)) end
  return site_settings_reply(current)
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
