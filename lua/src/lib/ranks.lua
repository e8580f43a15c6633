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
-- were gone: ranked() finds those on the board read (one SMEMBERS, one
-- ZMSCORE, and under "first" one ZMSCORE of their sequence numbers), and
-- every count below subtracts them, deciding in Lua which ghosts come
-- before a member in the board's order (score, then the tie-break Redis
-- orders by): O(R) for R pending, at most 1000 a board, with no call a
-- ghost (a window reads R entries more; a dense rank one ZCOUNT a
-- distinct ghost score above). No removal pending: one SMEMBERS of an
-- absent key, nothing else.

-- The view of board key `key` (of board settings `b`) the reads take:
-- the ghosts on it ({ m, raw score, score, seq (first) }) and `gone`, the
-- set of their names.
local function ranked(ns, b, key)
  local r = { ns = ns, key = key, ties = b.ties, ghosts = {}, gone = {} }
  local removing = rcall('SMEMBERS', ns .. 'removing:' .. b.name)
  if #removing == 0 then return r end
  local scores = rcall('ZMSCORE', key, unpack(removing))
  local seqs = r.ties == 'first' and rcall('ZMSCORE', side_key(ns, 'f', key), unpack(removing)) or {}
  for i, m in ipairs(removing) do
    if scores[i] then
      r.ghosts[#r.ghosts + 1] = { m = m, raw = scores[i], score = tonumber(scores[i]), seq = tonumber(seqs[i]) }
      r.gone[m] = true
    end
  end
  return r
end

-- Whether byte string a sorts after b (memcmp, then length: Redis' order
-- of equal scores, never the locale's).
local function bytes_after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x > y end
  end
  return #a > #b
end

-- How many ghosts of `r` come before the member m of score s (a number)
-- and "first" sequence number seq (nil: none) in the board's display
-- order: a higher score; an equal one with, under first, a lower sequence
-- number (none: after every one); then, as Redis orders equal scores, a
-- name after m's.
local function ghosts_ahead(r, s, m, seq)
  local n, first = 0, r.ties == 'first'
  seq = seq or ORDER_SEQ_NONE
  for _, g in ipairs(r.ghosts) do
    local ahead
    if g.score ~= s then
      ahead = g.score > s
    elseif first and (g.seq or ORDER_SEQ_NONE) ~= seq then
      ahead = (g.seq or ORDER_SEQ_NONE) < seq
    else
      ahead = bytes_after(g.m, m)
    end
    if ahead then n = n + 1 end
  end
  return n
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
  local first = ties == 'first'
  -- with ghosts: raw positions start..stop + R hold the window (at most R
  -- ghosts come before it or inside it)
  local raw = rcall('ZREVRANGE', first and side_key(r.ns, 'o', key) or key, start, stop + #r.ghosts, 'WITHSCORES')
  local out, want = {}, stop - start + 1
  local rank, live
  for i = 1, #raw, 2 do
    local m, s = raw[i], raw[i + 1]
    if first then m = m:sub(16) end
    if not r.gone[m] then
      if not live then
        -- the first live member fetched: its position among the live
        -- ones (the fetched entries before it are ghosts)
        live = start + (i - 1) / 2
        if #r.ghosts > 0 then
          local seq = first and ORDER_SEQ_NONE - tonumber(raw[i]:sub(1, 15)) or nil
          live = live - ghosts_ahead(r, tonumber(s), m, seq)
        end
      else
        live = live + 1
      end
      if live >= start then
        if ties == 'name' or first then
          rank = live + 1
        elseif #out == 0 then
          rank = ties == 'competition' and rcall('ZCOUNT', key, '(' .. s, '+inf') - ghosts_beyond(r, s, 1) + 1
            or dense_above(r, s) + 1
        elseif s ~= out[#out][2] then
          rank = ties == 'competition' and live + 1 or rank + 1
        end
        out[#out + 1] = { m, s, rank }
        if #out == want then break end
      end
    end
  end
  return out
end
