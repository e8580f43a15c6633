#!lua
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
--- @include "lib/prologue"

--- @include "lib/rankings"

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

--- @include "lib/epilogue"
