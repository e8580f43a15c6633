--- @include "lib/prologue"
--- @include "lib/order"
-- ranks: a window of a board in display order under its tie rule, and the
-- score format of replies. Needs rcall (lib/prologue) and the side keys of
-- lib/order. Tie rules:
--   name         Redis' order: equal scores by member, descending; rank = position
--   competition  equal scores share the rank, the next one skips (1, 2, 2, 4)
--   dense        equal scores share the rank, no gap (1, 2, 2, 3)
--   first        equal scores ordered by who reached the score first: the
--                side zset f:... holds, per member, the sequence number of
--                the vote that brought it to its current score
-- A read ranks by the rule in effect (lib/board: a switched rule takes
-- effect only once campaign_reindex.lua has built its side keys), whose
-- side keys are complete: dense and first cost O(log N) a rank and
-- O(log N + page) a window, as competition does. There is no slower path.

-- A score as replies show it: a string with `decimals` decimals.
local function fmt(score, decimals)
  return string.format('%.' .. decimals .. 'f', tonumber(score))
end

-- The view of board key `key` (of board settings `b`) the reads take.
local function ranked(ns, b, key)
  return { ns = ns, key = key, ties = b.ties }
end

-- How many distinct scores are strictly above s on a dense board.
local function dense_above(r, s)
  return rcall('ZCOUNT', side_key(r.ns, 'd', r.key), '(' .. s, '+inf')
end

-- Positions start..stop (0-based) of ranked board `r` in display order:
-- { { member, score, rank }, ... }.
local function ordered_window(r, start, stop)
  local key, ties = r.key, r.ties
  if ties == 'first' then
    local raw = rcall('ZREVRANGE', side_key(r.ns, 'o', key), start, stop, 'WITHSCORES')
    local out = {}
    for i = 1, #raw, 2 do out[#out + 1] = { raw[i]:sub(16), raw[i + 1], start + (i + 1) / 2 } end
    return out
  end
  local raw = rcall('ZREVRANGE', key, start, stop, 'WITHSCORES')
  local out = {}
  local rank
  for i = 1, #raw, 2 do
    local m, s = raw[i], raw[i + 1]
    local pos = start + (i - 1) / 2
    if ties == 'name' then
      rank = pos + 1
    elseif i == 1 then
      rank = ties == 'competition' and rcall('ZCOUNT', key, '(' .. s, '+inf') + 1 or dense_above(r, s) + 1
    elseif s ~= raw[i - 1] then
      rank = ties == 'competition' and pos + 1 or rank + 1
    end
    out[#out + 1] = { m, s, rank }
  end
  return out
end
