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

-- Options whose removal is pending (campaign_configure's `remove` lists
-- them in <ns>removing:B; campaign_remove.lua takes them off the period
-- boards in bounded steps) are "ghosts": still on a board not yet
-- cleaned, never shown. A read skips them and ranks the others as if they
-- were gone: ranked() finds those on the board read (one SMEMBERS, then
-- one ZMSCORE and a ZREVRANK for each ghost found: O(R log N) for R
-- pending, at most 1000 a board), and every count below subtracts them.
-- No removal pending: one SMEMBERS of an absent key, nothing else.

-- The view of board key `key` (of board settings `b`) the reads take:
-- the ghosts on it ({ pos, raw score, score }, sorted by their raw
-- position in the order the rule reads: the board, or o:... under first)
-- and `gone`, the set of their names.
local function ranked(ns, b, key)
  local r = { ns = ns, key = key, ties = b.ties, ghosts = {}, gone = {} }
  local removing = rcall('SMEMBERS', ns .. 'removing:' .. b.name)
  if #removing == 0 then return r end
  local scores = rcall('ZMSCORE', key, unpack(removing))
  for i, m in ipairs(removing) do
    local s = scores[i]
    if s then
      local pos
      if r.ties == 'first' then
        local seq = tonumber(rcall('ZSCORE', side_key(ns, 'f', key), m))
        pos = rcall('ZREVRANK', side_key(ns, 'o', key), order_member(seq, m))
      end
      pos = pos or rcall('ZREVRANK', key, m)
      r.ghosts[#r.ghosts + 1] = { pos = pos, raw = s, score = tonumber(s) }
      r.gone[m] = true
    end
  end
  table.sort(r.ghosts, function(x, y) return x.pos < y.pos end)
  return r
end

-- The members of ranked board `r` a read shows (ghosts left out).
local function live_size(r)
  return rcall('ZCARD', r.key) - #r.ghosts
end

-- How many ghosts of `r` score strictly above (`dir` 1) or below (-1) s.
local function ghosts_beyond(r, s, dir)
  local n, v = 0, tonumber(s) * dir
  for _, g in ipairs(r.ghosts) do
    if g.score * dir > v then n = n + 1 end
  end
  return n
end

-- The raw position `raw` of a live member of `r` as the read shows it.
local function live_pos(r, raw)
  local n = 0
  for _, g in ipairs(r.ghosts) do
    if g.pos < raw then n = n + 1 end
  end
  return raw - n
end

-- How many distinct scores are strictly above s on a dense board (a score
-- only ghosts hold does not count).
local function dense_above(r, s)
  local n = rcall('ZCOUNT', side_key(r.ns, 'd', r.key), '(' .. s, '+inf')
  if #r.ghosts == 0 then return n end
  local at, v = {}, tonumber(s)
  for _, g in ipairs(r.ghosts) do
    if g.score > v then at[g.raw] = (at[g.raw] or 0) + 1 end
  end
  for raw, c in pairs(at) do
    if rcall('ZCOUNT', r.key, raw, raw) == c then n = n - 1 end
  end
  return n
end

-- Positions start..stop (0-based, as the read shows them: ghosts left
-- out) of ranked board `r` in display order:
-- { { member, score, rank }, ... }.
local function ordered_window(r, start, stop)
  local key, ties = r.key, r.ties
  local from, to = start, stop
  if #r.ghosts > 0 then
    -- the raw position of the start'th live member, and room for every
    -- ghost after it
    for _, g in ipairs(r.ghosts) do
      if g.pos <= from then from = from + 1 end
    end
    to = from + (stop - start) + #r.ghosts
  end
  local first = ties == 'first'
  local raw = rcall('ZREVRANGE', first and side_key(r.ns, 'o', key) or key, from, to, 'WITHSCORES')
  local out, want = {}, stop - start + 1
  local rank
  for i = 1, #raw, 2 do
    local m, s = raw[i], raw[i + 1]
    if first then m = m:sub(16) end
    if not r.gone[m] then
      local pos = start + #out
      if ties == 'name' or first then
        rank = pos + 1
      elseif #out == 0 then
        rank = ties == 'competition' and rcall('ZCOUNT', key, '(' .. s, '+inf') - ghosts_beyond(r, s, 1) + 1
          or dense_above(r, s) + 1
      elseif s ~= out[#out][2] then
        rank = ties == 'competition' and pos + 1 or rank + 1
      end
      out[#out + 1] = { m, s, rank }
      if #out == want then break end
    end
  end
  return out
end
