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

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'page takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV < 2 or #ARGV > 3 then fail('USAGE', 'page takes order, page [, per_page]') end
  local prefix = root:sub(1, -9)
  local order, page, per_page = ARGV[1], ARGV[2], ARGV[3]
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

  local set = prefix .. order .. ':'
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
