#!lua
--[[
  campaign_reindex: build the side keys that make the "dense" and "first"
  tie rules O(log N) (lua/src/lib/order.lua) for a board's pending tie
  rule, and make it the rule in effect when they are complete. A rule is
  pending (lua/src/lib/board.lua) when campaign_configure switched a board
  already written to dense or first (it keeps the old rule in effect and
  records the new one as `ties_next`, `indexed` 0), and on a board whose stored rule is
  dense or first without `indexed` 1 (written by redvote 0.1, or switched
  by an older configure), which ranks by competition until then. Reads
  always rank by the rule in effect, with its complete side keys: none
  takes a slow path, before, during or after a switch.

  Batched, idempotent, safe under traffic: call with cursor "0", then again
  with the cursor each call returns, until it returns "0". Each call indexes
  about `count` members (ZSCAN pages of the period boards listed in
  <ns>periods:B, one board after the other; a board visited counts as one
  member at least, so a call also visits at most `count` empty or expired
  boards), so no call is long. Votes, imports and removals may run
  meanwhile: every writer keeps the side keys of the pending rule as well
  as those of the rule in effect, for the members it touches, so a member
  indexed early and voted on later stays right. The call that finishes the
  last period board makes the switch, atomically: `ties` becomes the
  pending rule, `ties_next` goes, `indexed` is 1, and the side keys of the
  old rule go (one UNLINK a listed period board). A cursor from before a
  change of the tie rule restarts from the beginning (the cursor carries
  the board's `order_gen`). A board with no pending rule needs nothing:
  the first call answers done. Run it once every client runs this version
  of the scripts (an older vote script keeps no pending rule's side keys).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  cursor  <cursor>  "0" to start; else the cursor the previous call
             returned
    ARGV[3]  count  <integer 1..5000>  members to index in this call, 1..5000;
             bounded work: at most 300 a call, more is taken as 300

  Writes: ZADD <ns>d:B:KIND:P (dense) or <ns>o:B:KIND:P (first), each with
    its board's expiry (as is <ns>f:B:KIND:P, for first); when done, HSET
    <ns>board:B ties (the pending rule) indexed 1, HDEL ties_next, and
    UNLINK of the old rule's side keys (lib/order's order_drop).

  Output: { members indexed by this call, period boards finished by this
    call, next cursor ("0": the board is indexed) }

  Keys: <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P

  Reply: {indexed: integer, finished: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor), REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_BOARD, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/board"
--- @include "lib/order"

local function main()
  local _, ns = campaign_key('campaign_reindex')
  argc('campaign_reindex', 3, 3, 'board, cursor, count')
  local cursor = ARGV[2]
  local count = math.min(integer_arg(ARGV[3], 'count', 1, 5000), 300) -- bounded work
  local gen, p, scan = cursor:match('^(%d+)|([^|]+)|(%d+)$')
  -- (a ZSCAN cursor is below 2^63: 19 digits; more would be a Redis error)
  if gen and (#gen > 15 or #scan > 19) then gen = nil end
  if cursor ~= '0' and not gen then
    fail('USAGE', 'cursor must be "0" or one campaign_reindex returned, got "' .. cursor:sub(1, 80) .. '"')
  end
  local b = board_settings(ns, ARGV[1])
  local board_hash = ns .. 'board:' .. b.name
  if not b.pending then
    -- (name or competition stored without the flag: nothing to build)
    if not b.indexed then rcall('HSET', board_hash, 'indexed', '1') end
    return { 0, 0, '0' }
  end
  local letter = (b.pending == 'dense' and 'd') or (b.pending == 'first' and 'o')

  -- Where to go on: the period board and ZSCAN cursor of the cursor, unless
  -- the tie rule changed since (order_gen) or that board left the index.
  -- (a pending name or competition has nothing to build)
  local index = ns .. 'periods:' .. b.name
  if not letter then
    rcall('ZCARD', index) -- its type only, before order_drop reads it
    p = nil
  elseif not gen or tonumber(gen) ~= b.order_gen or not rcall('ZSCORE', index, p) then
    p, scan = rcall('ZRANGE', index, 0, 0)[1], '0'
  end

  -- Read everything first (the boards, their "first" sequence numbers, the
  -- side keys' types and the boards' expiry), then write.
  -- The budget: `count` members, a board visited costing one at least (an
  -- empty or expired board listed in the index is a step too).
  local steps, done, spent, finished = {}, 0, 0, 0
  while p and spent < count do
    local key = ns .. 'b:' .. b.name .. ':' .. p
    local page = rcall('ZSCAN', key, scan, 'COUNT', count - spent)
    local items, side = page[2], side_key(ns, letter, key)
    rcall('ZCARD', side)
    local pairs_ = {}
    if letter == 'd' then
      local seen = {}
      for i = 2, #items, 2 do
        local m = dense_member(items[i])
        if not seen[m] then
          seen[m] = true
          pairs_[#pairs_ + 1] = items[i]
          pairs_[#pairs_ + 1] = m
        end
      end
    elseif #items > 0 then
      local members = {}
      for i = 1, #items, 2 do members[#members + 1] = items[i] end
      local seqs = rcall('ZMSCORE', side_key(ns, 'f', key), unpack(members))
      for j, m in ipairs(members) do
        pairs_[#pairs_ + 1] = items[2 * j]
        pairs_[#pairs_ + 1] = order_member(tonumber(seqs[j]), m)
      end
    end
    steps[#steps + 1] = { side = side, pairs = pairs_, expires = rcall('EXPIRETIME', key),
      first = letter == 'o' and side_key(ns, 'f', key) }
    done = done + #items / 2
    spent = spent + math.max(1, #items / 2)
    scan = page[1]
    if scan == '0' then
      finished = finished + 1
      local next_rank = rcall('ZRANK', index, p) + 1
      p = rcall('ZRANGE', index, next_rank, next_rank)[1]
    end
  end

  -- validated: the writes start here
  for _, s in ipairs(steps) do
    for i = 1, #s.pairs, 1000 do rcall('ZADD', s.side, unpack(s.pairs, i, math.min(i + 999, #s.pairs))) end
    if s.expires > 0 and #s.pairs > 0 then
      rcall('EXPIREAT', s.side, s.expires)
      -- (a "first" side key written after a change of the tie rule had none)
      if s.first then rcall('EXPIREAT', s.first, s.expires) end
    end
  end
  if not p then
    -- the switch: the pending rule takes effect, the old one's keys go
    rcall('HSET', board_hash, 'ties', b.pending, 'indexed', '1')
    rcall('HDEL', board_hash, 'ties_next')
    order_drop(ns, b.name, b.ties)
    return { done, finished, '0' }
  end
  return { done, finished, string.format('%d|%s|%s', b.order_gen, p, scan) }
end

--- @include "lib/epilogue"
