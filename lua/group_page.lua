#!lua
-- GENERATED from lua/src/site/group_page.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  group_page: page N of one group's articles, ordered by score, time, hot or
  best, in one call. The ordered group is the seeds' cache: the intersection
  of <prefix>group:NAME with <prefix><order>: stored under
  <prefix><order>:NAME for 60 seconds, built only when absent.

  The seeds intersect with AGGREGATE MAX and unit weights, which yields the
  order score only while it is >= 1; here the group set weighs 0 and the
  order set 1 (AGGREGATE MAX), which is the order score for every order whose
  scores are >= 0 (score, time, best, and hot after 2005).

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  group     group name: 1..64 bytes, none of : { } * ? [ ] \ ,
                       spaces or control characters
    ARGV[2]  order     "score" | "time" | "hot" | "best"
    ARGV[3]  page      1-based page number, 1..1000000
    ARGV[4]  per_page  optional, 1..100 (default: the site's page_size, 25)

  Writes: ZINTERSTORE + EXPIRE 60 of <prefix><order>:NAME, when absent.

  Output: as page.lua: { total, per_page, { id, score, { field, value, ... } }, ... }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_GROUP, REDVOTE_INVALID_ORDER,
    REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

-- names: the one rule for names that become part of a key (groups,
-- boards, options, channels, devices, rule names): 1..64 bytes, and none of
-- : { } * ? [ ] \ , spaces or control characters: no name can address another key, change a
-- key's cluster hash tag, or act as a pattern.
local function name_ok(s)
  return type(s) == 'string' and #s > 0 and #s <= 64 and not s:find('[%c%s:{}%*%?%[%]\\,]')
end

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'group_page takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < 3 or #ARGV > 4 then fail('USAGE', 'group_page takes group, order, page [, per_page]') end
  local prefix = root:sub(1, -9)
  local group, order, page, per_page = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
  if not name_ok(group) then
    fail('INVALID_GROUP', 'group must be 1..64 bytes without : { } * ? [ ] \\ , spaces or control characters, got "' .. group:sub(1, 80) .. '"')
  end
  if order ~= 'score' and order ~= 'time' and order ~= 'hot' and order ~= 'best' then
    fail('INVALID_ORDER', 'order must be score, time, hot or best, got "' .. order:sub(1, 80) .. '"')
  end
  if not page:find('^[1-9]%d*$') or #page > 7 or tonumber(page) > 1000000 then
    fail('INVALID_NUMBER', 'page must be an integer in 1..1000000, got "' .. page:sub(1, 80) .. '"')
  end
  if per_page == nil then
    per_page = rcall('HGET', prefix .. 'redvote:config', 'page_size') or '25'
    if not per_page:find('^[1-9]%d*$') or tonumber(per_page) > 100 then
      fail('INVALID_CONFIG', prefix .. 'redvote:config page_size is not in 1..100')
    end
  elseif not per_page:find('^[1-9]%d*$') or #per_page > 3 or tonumber(per_page) > 100 then
    fail('INVALID_NUMBER', 'per_page must be an integer in 1..100, got "' .. per_page:sub(1, 80) .. '"')
  end
  page, per_page = tonumber(page), tonumber(per_page)

  local set = prefix .. order .. ':' .. group
  if rcall('EXISTS', set) == 0 then
    rcall('ZINTERSTORE', set, 2, prefix .. 'group:' .. group, prefix .. order .. ':',
      'WEIGHTS', 0, 1, 'AGGREGATE', 'MAX')
    rcall('EXPIRE', set, 60)
  end
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
