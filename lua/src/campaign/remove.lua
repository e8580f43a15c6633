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

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  cursor  <cursor>  "0" to start or go on; else the cursor the
             previous call returned
    ARGV[3]  count  <integer 1..10000>  units of work for this call (period
             boards x pending options), 1..10000; bounded work: at most 200
             a call, more is taken as 200

  Writes: ZREM of the pending options from <ns>b:B:KIND:P and their side
    keys <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P (lib/order's
    order_remove); ZREM from <ns>periods:B of expired boards and of boards
    the removal emptied; HSET <ns>board:B remove_cursor remove_prev; when
    done, DEL <ns>removing:B and HDEL of those two fields.

  Output: { entries removed by this call (option x period board), period
    boards finished by this call, next cursor ("0": the removal is done) }

  Keys: <ns>board:B, <ns>removing:B, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P

  Reply: {removed: integer, finished: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE (a malformed cursor), REDVOTE_INVALID_CURSOR (a
    cursor this removal did not hand out last), REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_BOARD, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.

  Batched, idempotent, safe under traffic: call with cursor "0", then again
  with the cursor each call returns, until it returns "0". Each call does
  at most `count` units of work: a unit is one (period board, pending
  option) pair (a ZSCORE, and for an option on the board its ZREM and its
  side keys'), or one expired period board left in the index; a board's
  options may span calls. The period boards are visited in the index's
  order. Votes may run meanwhile: they refuse the pending options
  (REDVOTE_UNKNOWN_OPTION), so no board visited gets one back, and a board
  created meanwhile never holds one. The call that visits the last listed
  board deletes <ns>removing:B: the removal is complete. The result equals
  what a one-call removal (redvote 0.5's, or layout 1's) leaves: the
  options gone from every period board and side key, index entries of
  expired boards and of boards the removal emptied gone. No removal
  pending: the first call answers done, writing nothing.

  The progress is kept in Redis, not trusted to the caller: each step
  that is not the last stores the cursor it hands out (`remove_cursor` of
  <ns>board:B) and the one it started from (`remove_prev`). A cursor is
  "0" or one of those two (the previous one: a resend of a step whose
  reply was lost); any other is refused, REDVOTE_INVALID_CURSOR, writing
  nothing, for a step from an unknown place could end the removal with
  the options still on boards. "0" goes on from the stored cursor (the
  beginning when there is none): a driver that crashed, or was refused,
  goes on with "0". A removal configured meanwhile counts up
  `remove_gen` of <ns>board:B: a cursor from before it (it carries the
  generation) starts from the beginning, as does one whose period board
  left the index. A step that empties a board goes on to the next: no
  state between two steps lists a board that does not exist, so `redvote
  campaign NAME check` finds every one of them clean.
]]
--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/board"
--- @include "lib/order"

-- A cursor "GEN|P|AT" (gen: the remove_gen it was handed out under, P the
-- period board to go on with, AT its first option not visited): its parts,
-- or nil when it is not one.
local function cursor_parts(cursor)
  local gen, p, at = cursor:match('^(%d+)|([^|]+)|(%d+)$')
  if gen and (#gen > 15 or #at > 5) then gen = nil end
  if gen then return gen, p, tonumber(at) end
end

-- The cursor the step goes on from ("0": the beginning): "0" goes on from
-- the stored one (`handed`), any other must be it or the one its step
-- started from (`prev`: a resend of that step); anything else is refused
-- before the first write.
local function trusted_cursor(cursor, handed, prev, board_hash, board)
  for _, f in ipairs({ { 'remove_cursor', handed }, { 'remove_prev', prev } }) do
    local field, v = f[1], f[2]
    if v ~= '0' and not cursor_parts(v) then
      fail('INVALID_CONFIG', board_hash .. ' ' .. field .. ' is corrupt: "' .. v:sub(1, 40) .. '"')
    end
  end
  if cursor == '0' then return handed end
  if cursor ~= handed and cursor ~= prev then
    fail('INVALID_CURSOR', 'cursor "' .. cursor:sub(1, 80) .. '" is not one the removal from board "' .. board
      .. '" handed out last: send that one, or "0" to go on from where the removal stands')
  end
  return cursor
end

local function main()
  local _, ns = campaign_key('campaign_remove')
  argc('campaign_remove', 3, 3, 'board, cursor, count')
  local cursor = ARGV[2]
  local count = math.min(integer_arg(ARGV[3], 'count', 1, 10000), 200) -- bounded work (ARGV[3])
  if cursor ~= '0' and not cursor_parts(cursor) then
    fail('USAGE', 'cursor must be "0" or one campaign_remove returned, got "' .. cursor:sub(1, 80) .. '"')
  end
  local b = board_settings(ns, ARGV[1])
  local board_hash = ns .. 'board:' .. b.name
  local stored = rcall('HMGET', board_hash, 'remove_gen', 'remove_cursor', 'remove_prev')
  local remove_gen = stored[1] and stored_int(stored[1], 0, 999999999999999, board_hash, 'remove_gen') or 0
  local removing = ns .. 'removing:' .. b.name
  local options = rcall('SMEMBERS', removing)
  local index = ns .. 'periods:' .. b.name
  rcall('ZCARD', index) -- its type, before any write
  if #options == 0 then return { 0, 0, '0' } end
  table.sort(options)
  local start = trusted_cursor(cursor, stored[2] or '0', stored[3] or '0', board_hash, b.name)

  -- Where to go on: the period board and option of the cursor, unless a
  -- removal was configured since (remove_gen) or that board left the index.
  local gen, p, at
  if start ~= '0' then gen, p, at = cursor_parts(start) end
  local rank
  if gen and tonumber(gen) == remove_gen and at >= 1 and at <= #options then rank = rcall('ZRANK', index, p) end
  if not rank then rank, at, start = 0, 1, '0' end

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
      -- a board this call empties holds none of the options left: it is
      -- done, and leaves the index now (never listed once gone)
      if not step.last and #step.present > 0 and rcall('ZCARD', step.key) == #step.present then step.last = true end
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
    rcall('HDEL', board_hash, 'remove_cursor', 'remove_prev')
    return { removed, finished, '0' }
  end
  local next_cursor = string.format('%d|%s|%d', remove_gen, p, at)
  rcall('HSET', board_hash, 'remove_cursor', next_cursor, 'remove_prev', start)
  return { removed, finished, next_cursor }
end

--- @include "lib/epilogue"
