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
-- On an indexed board (lib/board) dense and first read the side zsets of
-- lib/order: O(log N) a rank, O(log N + page) a window. A board that
-- predates them (not indexed until campaign_reindex.lua has run) takes the
-- legacy path below, O(members above) / O(tie group), which is also the
-- fallback when a member is missing from the side keys.

-- A score as replies show it: a string with `decimals` decimals.
local function fmt(score, decimals)
  return string.format('%.' .. decimals .. 'f', tonumber(score))
end

-- The view of board key `key` (of board settings `b`) the reads take.
local function ranked(ns, b, key)
  return { ns = ns, key = key, ties = b.ties, indexed = b.indexed }
end

-- Legacy: how many distinct scores are strictly above s (O(members above)).
local function distinct_above(key, s)
  local above = rcall('ZRANGEBYSCORE', key, '(' .. s, '+inf', 'WITHSCORES')
  local n, last = 0, nil
  for i = 2, #above, 2 do
    if above[i] ~= last then n = n + 1; last = above[i] end
  end
  return n
end

-- How many distinct scores are strictly above s on a dense board.
local function dense_above(r, s)
  if r.indexed then return rcall('ZCOUNT', side_key(r.ns, 'd', r.key), '(' .. s, '+inf') end
  return distinct_above(r.key, s)
end

-- Legacy: the members scoring exactly s, earliest to reach s first.
local function tie_group(key, fkey, s)
  local members = rcall('ZRANGEBYSCORE', key, s, s)
  if #members > 1 then
    local seq = {}
    for i = 1, #members, 500 do
      local chunk = { unpack(members, i, math.min(i + 499, #members)) }
      local got = rcall('ZMSCORE', fkey, unpack(chunk))
      for j, m in ipairs(chunk) do seq[m] = tonumber(got[j]) or math.huge end
    end
    table.sort(members, function(a, b)
      if seq[a] ~= seq[b] then return seq[a] < seq[b] end
      return a > b
    end)
  end
  return members
end

-- Positions start..stop (0-based) of ranked board `r` in display order:
-- { { member, score, rank }, ... }.
local function ordered_window(r, start, stop)
  local key, ties = r.key, r.ties
  if ties == 'first' and r.indexed then
    local raw = rcall('ZREVRANGE', side_key(r.ns, 'o', key), start, stop, 'WITHSCORES')
    local out = {}
    for i = 1, #raw, 2 do out[#out + 1] = { raw[i]:sub(16), raw[i + 1], start + (i + 1) / 2 } end
    return out
  end
  local raw = rcall('ZREVRANGE', key, start, stop, 'WITHSCORES')
  local out = {}
  if #raw == 0 then return out end
  if ties == 'first' then
    -- The window may cut tie groups: walk whole groups from the first one.
    local fkey, s = side_key(r.ns, 'f', key), raw[2]
    local pos = rcall('ZCOUNT', key, '(' .. s, '+inf')
    while pos <= stop do
      for _, m in ipairs(tie_group(key, fkey, s)) do
        if pos >= start and pos <= stop then out[#out + 1] = { m, s, pos + 1 } end
        pos = pos + 1
      end
      local nxt = rcall('ZREVRANGEBYSCORE', key, '(' .. s, '-inf', 'WITHSCORES', 'LIMIT', 0, 1)
      if #nxt == 0 then break end
      s = nxt[2]
    end
    return out
  end
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
