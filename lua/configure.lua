#!lua
-- GENERATED from lua/src/site/configure.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  configure: read or change a site's settings, stored in Redis under the
  site's prefix so that every client of the site applies the same ones.

  Settings (hash <prefix>redvote:config; an absent field means the default):
    vote_score  score one net vote is worth, integer 1..1000000 (default 432
                = 86400/200). Fixed once the site has articles: changing it
                would break score = time + vote_score * (votes - downvotes).
    window      voting window in seconds after the publish time, integer
                60..315360000 (default 604800, one week)
    page_size   default articles per page, integer 1..100 (default 25)
    rankings    extra rankings kept beside score:, comma-separated subset of
                "hot,best" or "" (default ""). Articles enter hot:/best: when
                posted or voted on after the ranking is switched on.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1..] field, value, field, value, ... (none: only read)

  Output: { "vote_score", v, "window", v, "page_size", v, "rankings", v }
          (effective values, defaults filled in)

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_CONFIG, REDVOTE_CONFIG_LOCKED.
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

local limits = { vote_score = { 1, 1000000 }, window = { 60, 315360000 }, page_size = { 1, 100 } }

-- "" or a comma-separated subset of hot,best (no empty items).
local function rankings_ok(value)
  if value:find(',,') or value:find('^,') or value:find(',$') then return false end
  for item in value:gmatch('[^,]+') do
    if item ~= 'hot' and item ~= 'best' then return false end
  end
  return true
end

local function main()
  local root, prefix = site_root('configure')
  if #ARGV % 2 ~= 0 then fail('USAGE', 'configure takes field, value pairs') end
  local current = site_config(prefix, site_settings)

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
      fail('INVALID_CONFIG', 'unknown setting "' .. field .. '" (vote_score, window, page_size, rankings)')
    end
    if field == 'vote_score' and value ~= current.vote_score and rcall('EXISTS', root) == 1 then
      fail('CONFIG_LOCKED', 'vote_score is fixed once ' .. root .. ' exists (' .. current.vote_score .. ')')
    end
    updates[#updates + 1] = field
    updates[#updates + 1] = value
    current[field] = value
  end

  -- validated: the writes start here
  if #updates > 0 then rcall('HSET', config_key(prefix), unpack(updates)) end
  local reply = {}
  for _, name in ipairs(site_settings) do
    reply[#reply + 1] = name
    reply[#reply + 1] = current[name]
  end
  return reply
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
