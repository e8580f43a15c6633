#!lua flags=no-writes
-- GENERATED from lua/src/site/page.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  page: page N of the site's articles, best first, with every article's
  hash, id and score, in one call (the seeds pay 1 + 25 round trips).
  Read-only (also runs as EVALSHA_RO on a replica).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  order     "score" | "time" | "hot" | "best": the sorted set
                       <prefix><order>: to page through, highest first
    ARGV[2]  page      1-based page number, 1..1000000
    ARGV[3]  per_page  optional, 1..100 (default: the site's page_size, 25)

  Output: { total (members of the order set), per_page,
            { id, score (string), { field, value, ... } }, ... }
          where score is the article's score: value whatever the order.

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_ORDER, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_CONFIG.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
-- args: the checks every script makes of its KEYS and ARGV before anything
-- else, refused with REDVOTE_USAGE and a detail naming the operation. The
-- checks of single arguments are lib/integer_arg and lib/user.

-- The one key a script takes: KEYS[1] must end with `suffix` ('article:' for
-- the site root, 'campaign' for a campaign root); `role` describes it in the
-- refusal. Returns the key and the prefix before the suffix, from which the
-- script derives every other key (so they share the key's hash tag).
local function one_key(op, suffix, role)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-#suffix) ~= suffix then
    fail('USAGE', op .. ' takes 1 key, the ' .. role)
  end
  return key, key:sub(1, -#suffix - 1)
end

-- ARGV must hold lo..hi arguments; `usage` lists them ("user, article [, vote]").
local function argc(op, lo, hi, usage)
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
end
-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names): 1..64 bytes, and none of
-- : { } * ? [ ] \ , spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= 64 and not s:find('[%c%s:{}%*%?%[%]\\,]')
end
-- site_args: the article site's own argument checks, on top of lib/args.

-- The site root "<prefix>article:" (the article id counter), every site
-- script's one key: returns it and <prefix>, from which every other key
-- derives.
local function site_root(op)
  return one_key(op, 'article:', 'site root "<prefix>article:"')
end

-- An article reference, "N" or "article:N" (N 1..15 digits, no leading
-- zero): returns the id N, or refuses with INVALID_ID.
local function article_id(ref)
  local id = ref:match('^article:([1-9]%d*)$') or ref:match('^([1-9]%d*)$')
  if not id or #id > 15 then fail('INVALID_ID', 'article must be N or article:N, got "' .. ref:sub(1, 80) .. '"') end
  return id
end

-- A group name (lib/names' rule), or INVALID_GROUP.
local function check_group(group)
  if not name_ok(group) then
    fail('INVALID_GROUP', 'group must be 1..64 bytes without : { } * ? [ ] \\ , spaces or control characters, got "' .. group:sub(1, 80) .. '"')
  end
end

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
-- site_config: the site's settings, hash <prefix>redvote:config (an absent
-- field means the default), read in one HMGET. configure.lua documents and
-- changes them; post and vote need vote_score, window and rankings, rerank
-- rankings, page and group_page the default page_size.

local site_settings = { 'vote_score', 'window', 'page_size', 'rankings' }
local site_defaults = { vote_score = '432', window = '604800', page_size = '25', rankings = '' }

local function config_key(prefix)
  return prefix .. 'redvote:config'
end

-- The settings named in `names` (a list), as strings, defaults filled in:
-- { name = value }.
local function site_config(prefix, names)
  local stored = rcall('HMGET', config_key(prefix), unpack(names))
  local values = {}
  for i, name in ipairs(names) do values[name] = stored[i] or site_defaults[name] end
  return values
end

-- What a post or a vote needs: vote_score and window (numbers), rankings;
-- INVALID_CONFIG when a number is corrupt.
local function vote_settings(prefix)
  local cfg = site_config(prefix, { 'vote_score', 'window', 'rankings' })
  local vote_score, window = tonumber(cfg.vote_score), tonumber(cfg.window)
  if not vote_score or not window then fail('INVALID_CONFIG', config_key(prefix) .. ' holds a non-number') end
  return vote_score, window, cfg.rankings
end

-- The default articles per page (a number), or INVALID_CONFIG.
local function page_size_setting(prefix)
  local size = site_config(prefix, { 'page_size' }).page_size
  if not size:find('^[1-9]%d*$') or tonumber(size) > 100 then
    fail('INVALID_CONFIG', config_key(prefix) .. ' page_size is not in 1..100')
  end
  return tonumber(size)
end
-- site_page: one page of an ordered set of articles (page.lua: the whole
-- site's <prefix><order>:, group_page.lua: a group's cached ordering).

-- Check order, page and per_page (absent: the site's page_size); returns
-- page and per_page as numbers.
local function page_args(prefix, order, page, per_page)
  if order ~= 'score' and order ~= 'time' and order ~= 'hot' and order ~= 'best' then
    fail('INVALID_ORDER', 'order must be score, time, hot or best, got "' .. order:sub(1, 80) .. '"')
  end
  page = integer_arg(page, 'page', 1, 1000000)
  if per_page == nil then return page, page_size_setting(prefix) end
  return page, integer_arg(per_page, 'per_page', 1, 100)
end

-- Page `page` of the sorted set `set`, highest first: { total, per_page,
-- { id, score (the article's score:), { field, value, ... } }, ... }.
local function read_page(prefix, set, page, per_page)
  local start = (page - 1) * per_page
  local reply = { rcall('ZCARD', set), per_page }
  local members = rcall('ZREVRANGE', set, start, start + per_page - 1)
  if #members == 0 then return reply end
  local scores = rcall('ZMSCORE', prefix .. 'score:', unpack(members))
  for i, member in ipairs(members) do
    local id = member:match('^article:(%d+)$')
    reply[#reply + 1] = { id or member, scores[i], id and rcall('HGETALL', prefix .. member) or {} }
  end
  return reply
end

local function main()
  local _, prefix = site_root('page')
  argc('page', 2, 3, 'order, page [, per_page]')
  local order = ARGV[1]
  local page, per_page = page_args(prefix, order, ARGV[2], ARGV[3])
  return read_page(prefix, prefix .. order .. ':', page, per_page)
end

-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- (a Redis error, a Lua bug) is still answered as a stable code, never as a
-- raw Lua error.
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if not res:find('^REDVOTE_') then res = 'REDVOTE_INTERNAL ' .. res end
return redis.error_reply(res)
