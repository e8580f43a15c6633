--- @include "lib/prologue"
-- site_board_edit: what groups.lua and upgrade.lua need to put articles
-- into and take them out of site layout 2's group boards (lib/site_boards
-- says what the boards hold); apart from lib/site_boards so that a vote
-- defines none of these functions (each is a closure made on every call).

-- Every order a group board is kept for (a board of a ranking the site does
-- not keep stays empty, as its ZINTERSTORE would be).
local GROUP_ORDERS = { 'score', 'time', 'hot', 'best' }

-- The most groups an article may be in on layout 2 (a vote updates the
-- boards of each): groups.lua refuses a join beyond it, upgrade.lua an
-- article of layout 1 that is in more.
local MAX_GROUPS = 100

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
