#!lua
--[[
  campaign_remove: finish the removal of options from a board's period
  boards in bounded steps. campaign_configure's `remove` (campaign data
  layout 2) deletes an option's weight, display data, imported votes and
  participant counter at once (O(options)) and lists it in the board's
  pending set <ns>removing:B; its entries on the period boards listed in
  <ns>periods:B (real and shown) and their side keys (f:, o:, d: of
  lua/src/lib/order.lua) are what this script takes off. Until it is done,
  reads skip the pending options (lua/src/lib/ranks.lua) and configure
  refuses to add one of them again.

  Batched, idempotent, safe under traffic: call with cursor "0", then again
  with the cursor each call returns, until it returns "0". Each call does
  at most `count` units of work: a unit is one (period board, pending
  option) pair (a ZSCORE, and for an option on the board its ZREM and its
  side keys'), or one expired period board left in the index; a board's
  options may span calls. The period boards are visited in the index's
  order. Votes may run meanwhile: they refuse the pending options
  (REDVOTE_UNKNOWN_OPTION), so no board visited gets one back, and a board
  created meanwhile never holds one. A removal configured meanwhile counts
  up `remove_gen` of <ns>board:B: a cursor from before it restarts from
  the beginning (the cursor carries the generation). The call that visits
  the last listed board deletes <ns>removing:B: the removal is complete.
  The result equals what a one-call removal (redvote 0.5's, or layout 1's)
  leaves: the options gone from every period board and side key, index
  entries of expired boards and of boards the removal emptied gone. No
  removal pending: the first call answers done, writing nothing.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  cursor  <cursor>  "0" to start; else the cursor the previous call
             returned
    ARGV[3]  count  <integer 1..10000>  units of work for this call (period
             boards x pending options), 1..10000; bounded work: at most 200
             a call, more is taken as 200

  Writes: ZREM of the pending options from <ns>b:B:KIND:P and their side
    keys <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P (lib/order's
    order_remove); ZREM from <ns>periods:B of expired boards and of boards
    the removal emptied; when done, DEL <ns>removing:B.

  Output: { entries removed by this call (option x period board), period
    boards finished by this call, next cursor ("0": the removal is done) }

  Keys: <ns>board:B, <ns>removing:B, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P

  Reply: {removed: integer, finished: integer, next: string}
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
  local _, ns = campaign_key('campaign_remove')
  argc('campaign_remove', 3, 3, 'board, cursor, count')
  local cursor = ARGV[2]
  local count = math.min(integer_arg(ARGV[3], 'count', 1, 10000), 200) -- bounded work (ARGV[3])
  local gen, p, at = cursor:match('^(%d+)|([^|]+)|(%d+)$')
  if gen and (#gen > 15 or #at > 5) then gen = nil end
  if cursor ~= '0' and not gen then
    fail('USAGE', 'cursor must be "0" or one campaign_remove returned, got "' .. cursor:sub(1, 80) .. '"')
  end
  local b = board_settings(ns, ARGV[1])
  local board_hash = ns .. 'board:' .. b.name
  local stored_gen = rcall('HGET', board_hash, 'remove_gen')
  local remove_gen = stored_gen and stored_int(stored_gen, 0, 999999999999999, board_hash, 'remove_gen') or 0
  local removing = ns .. 'removing:' .. b.name
  local options = rcall('SMEMBERS', removing)
  local index = ns .. 'periods:' .. b.name
  rcall('ZCARD', index) -- its type, before any write
  if #options == 0 then return { 0, 0, '0' } end
  table.sort(options)

  -- Where to go on: the period board and option of the cursor, unless a
  -- removal was configured since (remove_gen) or that board left the index.
  at = tonumber(at)
  local rank
  if gen and tonumber(gen) == remove_gen and at >= 1 and at <= #options then rank = rcall('ZRANK', index, p) end
  if not rank then rank, at = 0, 1 end

  -- The boards this call may visit (each costs a unit at least: count + 1
  -- of them at most, the last one only as the next cursor), in one read of
  -- the index; then everything read (the boards' entries of the options,
  -- the side keys), then written.
  local listed = rcall('ZRANGE', index, rank, rank + count, 'WITHSCORES')
  local now = tonumber(rcall('TIME')[1])
  local dense, first = false, false
  for _, rule in ipairs(b.sides) do
    if rule == 'dense' then dense = true else first = true end
  end
  local steps, spent, finished, i = {}, 0, 0, 1
  p = listed[1]
  while p and spent < count do
    local step = { p = p, key = ns .. 'b:' .. b.name .. ':' .. p, present = {}, scores = {} }
    local expiry = tonumber(listed[i + 1])
    if expiry > 0 and expiry <= now then
      -- expired: it leaves the index (its keys are gone or going)
      step.expired = true
      spent = spent + 1
      step.last = true
    else
      local take = math.min(#options - at + 1, count - spent)
      local chunk = { unpack(options, at, at + take - 1) }
      local scores = rcall('ZMSCORE', step.key, unpack(chunk))
      for j, option in ipairs(chunk) do
        if scores[j] then
          step.present[#step.present + 1] = option
          step.scores[#step.scores + 1] = scores[j]
        end
      end
      if #step.present > 0 then
        local f = side_key(ns, 'f', step.key)
        if first then
          step.seqs = rcall('ZMSCORE', f, unpack(step.present))
          rcall('ZCARD', side_key(ns, 'o', step.key))
        else
          rcall('ZCARD', f)
        end
        if dense then rcall('ZCARD', side_key(ns, 'd', step.key)) end
      end
      spent = spent + take
      at = at + take
      step.last = at > #options
    end
    steps[#steps + 1] = step
    if step.last then
      finished = finished + 1
      i, at = i + 2, 1
      p = listed[i]
    end
  end

  -- validated: the writes start here; per board, what order_remove
  -- (lib/order) does for each option, in one command a key
  local removed = 0
  for _, s in ipairs(steps) do
    if #s.present > 0 then
      local key = s.key
      rcall('ZREM', key, unpack(s.present))
      if dense then
        local seen = {}
        for _, old in ipairs(s.scores) do
          if not seen[old] then
            seen[old] = true
            if rcall('ZCOUNT', key, old, old) == 0 then rcall('ZREMRANGEBYSCORE', side_key(ns, 'd', key), old, old) end
          end
        end
      end
      if first then
        local members = {}
        for j, option in ipairs(s.present) do members[j] = order_member(tonumber(s.seqs[j]), option) end
        rcall('ZREM', side_key(ns, 'o', key), unpack(members))
      end
      rcall('ZREM', side_key(ns, 'f', key), unpack(s.present))
      removed = removed + #s.present
    end
    -- a board expired, or emptied by the removal, leaves the index (as a
    -- one-call removal leaves it)
    if s.expired or (s.last and rcall('EXISTS', s.key) == 0) then rcall('ZREM', index, s.p) end
  end
  if not p then
    rcall('DEL', removing)
    return { removed, finished, '0' }
  end
  return { removed, finished, string.format('%d|%s|%d', remove_gen, p, at) }
end

--- @include "lib/epilogue"
