--- @include "lib/prologue"
-- order: the side zsets that make the "dense" and "first" tie rules cost
-- what "competition" costs (a rank O(log N), a page O(log N + page)). For a
-- period board <ns>b:B:KIND:P:
--   <ns>d:B:KIND:P  ties "dense": one member per distinct score of the
--                   board, the score as %.17g (score = that score); a
--                   dense rank is 1 + ZCOUNT of the scores above
--   <ns>o:B:KIND:P  ties "first": one member per member M of the board,
--                   score = M's board score, member = 15 digits of
--                   (10^15 - 1 - seq) .. M, where seq is M's entry in the
--                   "first" side key <ns>f:B:KIND:P (the vote that brought M
--                   to its score; none: 10^15 - 1). Redis orders equal
--                   scores by member, descending: here, by seq ascending,
--                   then M descending, the display order of "first"; a
--                   position is a ZREVRANK, a page a ZREVRANGE
-- Every writer keeps them for the rules of the board's `sides` (lib/board:
-- the rule in effect and a pending one), in the same call as the board's
-- own write: order_read before its first write, order_write /
-- order_remove after it. The reads use those of the rule in effect, which
-- are complete; campaign_reindex.lua builds those of a pending rule. Needs
-- rcall (lib/prologue).

local ORDER_SEQ_NONE = 999999999999999

-- The side key <ns>X:B:KIND:P of board key <ns>b:B:KIND:P.
local function side_key(ns, letter, key)
  return ns .. letter .. key:sub(#ns + 2)
end

-- The o:... member of `member` whose "first" sequence number is `seq`.
-- (%d: sequence numbers are whole, below 10^15; 2.5x as fast as %.0f, and
-- a vote writes two of these a board)
local function order_member(seq, member)
  return string.format('%015d%s', ORDER_SEQ_NONE - (seq or ORDER_SEQ_NONE), member)
end

-- The d:... member of a score (any text of it).
local function dense_member(score)
  return string.format('%.17g', tonumber(score))
end

-- Before the first write to `key` for `member` (board settings `b`): read
-- (and so type-check) the side keys the write will touch, for every rule
-- of b.sides. Returns the state order_write takes, one array: [1] the d:
-- key (dense; false: not kept), [2] whether it is new (order_write then
-- gives it the board's expiry), [3] the o: key (first; false: not kept),
-- [4] whether it is new, [5] for a first board (b.first) its "first" side
-- key f: (false: none), [6] the member's current sequence number there
-- (false: none). Each side key is named once, the board key's tail cut
-- once for all of them, the state made by one constructor (an array of
-- slots made at once: named fields added one by one rehash the table as
-- it grows) and the sequence sent as text: a first-ties vote reads and
-- writes these for every board entry.
local function order_read(ns, b, key, member)
  local tail, d, o, f = key:sub(#ns + 2), false, false, false
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then d = ns .. 'd' .. tail else o = ns .. 'o' .. tail end
  end
  if b.first then f = ns .. 'f' .. tail end
  return { d, d and rcall('ZCARD', d) == 0, o, o and rcall('ZCARD', o) == 0, f,
    f and tonumber(rcall('ZSCORE', f, member)) or false }
end

-- After `member` of `key` moved from score `old` (nil: absent) to `new`
-- (text): record, for every rule of b.sides, the new score (dense) or
-- position (first: its new sequence number `seq` in the "first" side key,
-- and its position with it, replacing the one order_read read, st.seq).
-- An order key order_read found new expires at `expiry` (nil: kept), as
-- its board, and so does the "first" side key (new too, or written
-- without an expiry since the board switched to first). `fresh` false:
-- the caller already wrote this member's keys in this call (import), so
-- no key is new. (`seq` goes to ZADD as text: Redis 7.0 formats a number
-- argument with %.17g.)
local function order_write(ns, b, key, member, old, new, st, seq, expiry, fresh)
  local expire = expiry and fresh ~= false
  local d, o, f = st[1], st[3], st[5]
  if d then
    rcall('ZADD', d, new, dense_member(new))
    if old and tonumber(old) ~= tonumber(new) and rcall('ZCOUNT', key, old, old) == 0 then
      rcall('ZREMRANGEBYSCORE', d, old, old)
    end
    if expire and st[2] then rcall('EXPIREAT', d, expiry) end
  end
  if o then
    -- add first: a key emptied by the ZREM would be deleted, its expiry
    -- with it (seq always changes, so the two entries differ)
    rcall('ZADD', o, new, order_member(seq, member))
    rcall('ZREM', o, order_member(st[6], member))
    if expire and st[4] then rcall('EXPIREAT', o, expiry) end
  end
  if f then
    rcall('ZADD', f, string.format('%d', seq), member)
    if expire and st[4] then rcall('EXPIREAT', f, expiry) end
  end
end

-- Remove `member` from `key` and the side keys of the rules of b.sides
-- (and its "first" sequence number). Reads first what it needs: call it
-- only once every check has passed.
local function order_remove(ns, b, key, member)
  local old = rcall('ZSCORE', key, member)
  if not old then return end
  rcall('ZREM', key, member)
  local f = side_key(ns, 'f', key)
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then
      if rcall('ZCOUNT', key, old, old) == 0 then rcall('ZREMRANGEBYSCORE', side_key(ns, 'd', key), old, old) end
    else
      rcall('ZREM', side_key(ns, 'o', key), order_member(tonumber(rcall('ZSCORE', f, member)), member))
    end
  end
  rcall('ZREM', f, member)
end

-- The side keys of `rule` (dense: d:, first: o: and the "first" sequence
-- numbers f:, which only a first board keeps up to date; none for the
-- others) of every period board listed in <ns>periods:B, unlinked: a rule
-- no longer kept (a switch made, or a pending one replaced) leaves nothing
-- behind to go stale. O(period boards of the board), not O(members):
-- UNLINK frees large keys off the main thread.
local function order_drop(ns, board, rule)
  local letters = (rule == 'dense' and { 'd:' }) or (rule == 'first' and { 'o:', 'f:' })
  if not letters then return end
  local index = rcall('ZRANGE', ns .. 'periods:' .. board, 0, -1)
  for i = 1, #index, 250 do
    local keys = {}
    for j = i, math.min(i + 249, #index) do
      for _, letter in ipairs(letters) do keys[#keys + 1] = ns .. letter .. board .. ':' .. index[j] end
    end
    rcall('UNLINK', unpack(keys))
  end
end
