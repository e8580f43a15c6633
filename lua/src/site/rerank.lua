#!lua
--[[
  rerank: (re)write the hot: and best: entries of a batch of articles from
  their counts, for a site that switched those rankings on after articles
  were posted (new votes keep them right by themselves). Articles are taken
  in publish order (time:), `count` at a time; call again with `next` until
  it is 0. Idempotent.

  Input:
    KEYS[1]  site root "<prefix>article:"; other keys derive from <prefix>
    ARGV[1]  start  <integer 0..999999999999>  0-based position in time:
             (oldest first)
    ARGV[2]  count  <integer 1..1000>  1..1000

  Writes: ZADD <prefix>hot: / <prefix>best: (those the site keeps) for each
    article of the batch; on site layout 2 (or while upgrade.lua runs), the
    same scores into the boards of the article's groups,
    <prefix>gboard:hot:NAME / <prefix>gboard:best:NAME for each NAME of
    <prefix>groups:ID.

  Output: { articles ranked, next start (0 when the batch reached the end) }

  Keys: <prefix>redvote:config, <prefix>time:, <prefix>article:ID,
    <prefix>hot:, <prefix>best:, <prefix>groups:ID,
    <prefix>gboard:hot:NAME, <prefix>gboard:best:NAME

  Reply: {ranked: integer, next: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NUMBER, REDVOTE_INVALID_CONFIG (a
    key of the wrong type), REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/integer_arg"
--- @include "lib/site_args"

--- @include "lib/site_config"

--- @include "lib/rankings"
--- @include "lib/site_boards"

local function main()
  local _, prefix, _, boards = site_root('rerank', 2, 2, 'start, count')
  local start = integer_arg(ARGV[1], 'start', 0, 999999999999, 'an integer >= 0')
  local count = integer_arg(ARGV[2], 'count', 1, 1000)
  local rankings = rcall('HGET', prefix .. CONFIG, 'rankings') or ''

  -- Everything is read before the first write: a ranking or an article
  -- hash of the wrong type is refused with nothing written.
  local batch = rcall('ZRANGE', prefix .. 'time:', start, start + count - 1, 'WITHSCORES')
  check_rankings(prefix, rankings)
  local counts = {}
  local groups = {}
  for i = 1, #batch, 2 do
    counts[i] = rcall('HMGET', prefix .. batch[i], 'votes', 'downvotes')
    local id = boards and batch[i]:match('^article:(%d+)$')
    groups[i] = id and rcall('SMEMBERS', prefix .. 'groups:' .. id) or {}
  end

  -- validated: the writes start here
  for i = 1, #batch, 2 do
    local c = counts[i]
    write_rankings(prefix, rankings, batch[i], tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(batch[i + 1]))
    if #groups[i] > 0 then boards_rankings(prefix, rankings, groups[i], batch[i]) end
  end
  local done = #batch / 2
  return { done, done == count and start + count or 0 }
end

--- @include "lib/epilogue"
