--- @include "lib/prologue"
-- site_boards: site layout 2's group boards (docs/layout.md). Each group
-- NAME has, for every order (score, time, hot, best), the sorted set
-- <prefix>gboard:<order>:NAME: exactly the members of <prefix>group:NAME
-- that are in <prefix><order>:, with their score there (what the seeds'
-- ZINTERSTORE computes, kept up to date instead of rebuilt). The reverse
-- index <prefix>groups:ID (a set of group names) lists the groups of
-- article ID, so that vote and rerank update every board of the article in
-- the same call: O(groups x log N). groups.lua adds and removes the
-- article with its current scores; upgrade.lua builds both from layout 1.
--
-- The names differ from the seeds' 60-second caches <prefix><order>:NAME
-- on purpose: during the upgrade a layout-1 group page still builds and
-- expires those, and must never read (or expire) a half-built board.

-- Every order a group board is kept for (a board of a ranking the site does
-- not keep stays empty, as its ZINTERSTORE would be).
local GROUP_ORDERS = { 'score', 'time', 'hot', 'best' }

-- The board of group `group` in `order` ("score", "time", "hot", "best").
local function group_board(prefix, order, group)
  return prefix .. 'gboard:' .. order .. ':' .. group
end

-- Set the score of `member` to `value` (a string, as Redis answered it)
-- in the `order` board of every group in `groups` (a list of names).
local function boards_set(prefix, order, groups, member, value)
  for i = 1, #groups do rcall('ZADD', prefix .. 'gboard:' .. order .. ':' .. groups[i], value, member) end
end

-- Copy `member`'s hot: and best: scores (those the site keeps, after
-- write_rankings) into the boards of its `groups`.
local function boards_rankings(prefix, rankings, groups, member)
  if rankings:find('hot', 1, true) then
    boards_set(prefix, 'hot', groups, member, rcall('ZSCORE', prefix .. 'hot:', member))
  end
  if rankings:find('best', 1, true) then
    boards_set(prefix, 'best', groups, member, rcall('ZSCORE', prefix .. 'best:', member))
  end
end

-- Read the four boards of `group` (a wrong type is refused before a
-- caller's first write).
local function boards_check(prefix, group)
  for i = 1, 4 do rcall('ZCARD', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group) end
end

-- `member`'s score in each order, { score, time, hot, best } (nil when
-- absent from that order), read before a caller's first write.
local function order_scores(prefix, member)
  local scores = {}
  for i = 1, 4 do scores[i] = rcall('ZSCORE', prefix .. GROUP_ORDERS[i] .. ':', member) end
  return scores
end

-- Put `member` (its `scores`, from order_scores) in the boards of `group`.
local function boards_add(prefix, group, member, scores)
  for i = 1, 4 do
    if scores[i] then rcall('ZADD', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group, scores[i], member) end
  end
end

-- Take `member` out of the boards of `group`.
local function boards_remove(prefix, group, member)
  for i = 1, 4 do rcall('ZREM', prefix .. 'gboard:' .. GROUP_ORDERS[i] .. ':' .. group, member) end
end
