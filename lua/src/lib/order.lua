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
-- Every writer keeps them, for a board of that rule, whatever its
-- `indexed` flag (lib/board): order_read before its first write,
-- order_write / order_remove after the board's own write. The reads trust
-- them only when the flag is set (campaign_reindex.lua builds them for
-- boards that predate them). Needs rcall (lib/prologue).

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

-- Before the first write to `key` (ties `ties`) for `member`: read (and so
-- type-check) the side keys the write will touch. Returns the member's
-- current "first" sequence number (nil: none) for order_write, and whether
-- the order key is new (order_write then gives it `expiry`).
local function order_read(ns, ties, key, member)
  if ties == 'dense' then
    return nil, rcall('ZCARD', side_key(ns, 'd', key)) == 0
  elseif ties == 'first' then
    local new = rcall('ZCARD', side_key(ns, 'o', key)) == 0
    return tonumber(rcall('ZSCORE', side_key(ns, 'f', key), member)), new
  end
end

-- After `member` of `key` moved from score `old` (nil: absent) to `new`
-- (text): record the new score (dense) or position (first: its new
-- sequence number `seq` in the "first" side key, and its position with it,
-- replacing the one read by order_read, `old_seq`).
-- A new order key (order_read) expires at `expiry` (nil: kept), as its
-- board, and so does the "first" side key (new too, or written without an
-- expiry since the board switched to first).
local function order_write(ns, ties, key, member, old, new, old_seq, seq, new_key, expiry)
  local side
  if ties == 'dense' then
    side = side_key(ns, 'd', key)
    rcall('ZADD', side, new, dense_member(new))
    if old and tonumber(old) ~= tonumber(new) and rcall('ZCOUNT', key, old, old) == 0 then
      rcall('ZREMRANGEBYSCORE', side, old, old)
    end
  elseif ties == 'first' then
    rcall('ZADD', side_key(ns, 'f', key), seq, member)
    -- add first: a key emptied by the ZREM would be deleted, its expiry
    -- with it (seq always changes, so the two entries differ)
    side = side_key(ns, 'o', key)
    rcall('ZADD', side, new, order_member(seq, member))
    rcall('ZREM', side, order_member(old_seq, member))
  end
  if side and new_key and expiry then
    rcall('EXPIREAT', side, expiry)
    if ties == 'first' then rcall('EXPIREAT', side_key(ns, 'f', key), expiry) end
  end
end

-- Remove `member` from `key` and its side keys. Reads first what it needs:
-- call it only once every check has passed.
local function order_remove(ns, ties, key, member)
  local old = rcall('ZSCORE', key, member)
  if not old then return end
  rcall('ZREM', key, member)
  if ties == 'dense' then
    if rcall('ZCOUNT', key, old, old) == 0 then rcall('ZREMRANGEBYSCORE', side_key(ns, 'd', key), old, old) end
  elseif ties == 'first' then
    local f = side_key(ns, 'f', key)
    rcall('ZREM', side_key(ns, 'o', key), order_member(tonumber(rcall('ZSCORE', f, member)), member))
  end
  rcall('ZREM', side_key(ns, 'f', key), member)
end
