#!lua
-- GENERATED from lua/src/site/rerank.lua: edit that file, then run REDVOTE_SYNC_LUA=1 cargo test --lib lua_sources
--[[
  rerank: (re)write the hot: and best: entries of a batch of articles from
  their counts, for a site that switched those rankings on after articles
  were posted (new votes keep them right by themselves). Articles are taken
  in publish order (time:), `count` at a time; call again with `next` until
  it is 0. Idempotent.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  start  0-based position in time: (oldest first)
    ARGV[2]  count  1..1000

  Writes: ZADD <prefix>hot: / <prefix>best: (those the site keeps) for each
    article of the batch.

  Output: { articles ranked, next start (0 when the batch reached the end) }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER.
]]
-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end

-- rankings: the extra rankings a site may keep beside score: (shared
-- block: the master copy is lua/lib/rankings.lua; needs rcall above it).
-- Both are functions of the article's counts and time only, so they change
-- only when a vote does.

-- Reddit's "hot": sign(s) * log10(max(|s|, 1)) + (time - 1134028003) / 45000
local function hot(up, down, time)
  local s = up - down
  local sign = (s > 0 and 1) or (s < 0 and -1) or 0
  return sign * math.log10(math.max(math.abs(s), 1)) + (time - 1134028003) / 45000
end

-- "best": lower bound of the Wilson score interval of up / (up + down), z = 1.281551565545
local function best(up, down)
  local n = up + down
  if n <= 0 then return 0 end
  local z = 1.281551565545
  local p = up / n
  return (p + z * z / (2 * n) - z * math.sqrt((p * (1 - p) + z * z / (4 * n)) / n)) / (1 + z * z / n)
end

-- Write an article's entries in the rankings the site keeps (`rankings`:
-- the config value, e.g. "hot,best").
local function write_rankings(prefix, rankings, member, up, down, time)
  if rankings:find('hot', 1, true) then
    rcall('ZADD', prefix .. 'hot:', string.format('%.17g', hot(up, down, time)), member)
  end
  if rankings:find('best', 1, true) then
    rcall('ZADD', prefix .. 'best:', string.format('%.17g', best(up, down)), member)
  end
end

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'article:' then
    fail('USAGE', 'rerank takes 1 key, the site root "<prefix>article:"')
  end
  if #ARGV ~= 2 then fail('USAGE', 'rerank takes start, count') end
  local prefix = root:sub(1, -9)
  local start, count = ARGV[1], ARGV[2]
  if not start:find('^%d+$') or #start > 12 then
    fail('INVALID_NUMBER', 'start must be an integer >= 0, got "' .. start:sub(1, 80) .. '"')
  end
  if not count:find('^[1-9]%d*$') or #count > 4 or tonumber(count) > 1000 then
    fail('INVALID_NUMBER', 'count must be an integer in 1..1000, got "' .. count:sub(1, 80) .. '"')
  end
  start, count = tonumber(start), tonumber(count)
  local rankings = rcall('HGET', prefix .. 'redvote:config', 'rankings') or ''

  -- validated: the writes start here
  local batch = rcall('ZRANGE', prefix .. 'time:', start, start + count - 1, 'WITHSCORES')
  for i = 1, #batch, 2 do
    local member, time = batch[i], tonumber(batch[i + 1])
    local counts = rcall('HMGET', prefix .. member, 'votes', 'downvotes')
    write_rankings(prefix, rankings, member, tonumber(counts[1]) or 0, tonumber(counts[2]) or 0, time)
  end
  local done = #batch / 2
  return { done, done == count and start + count or 0 }
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
