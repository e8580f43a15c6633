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
