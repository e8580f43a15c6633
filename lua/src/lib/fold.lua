--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/apply"
--- @include "lib/fold_settings"
-- fold: a buffered campaign's votes (campaign settings `mode` "buffered")
-- are accepted by campaign_vote into buffers, and written to the boards
-- here, many at once (lib/apply), in one call: a fold is atomic, and what
-- it folds leaves the buffers in the same call.
--
-- Each voted (board B, option O) has its buffer <ns>buf:B:O, a list,
-- oldest first, of one line a pair voted, fields separated by a tab (no
-- name, user or number holds one):
--   1, arrived (server Unix ms), the pair's place in its vote (0..49),
--   time (the vote's Unix second), user, channel, device, weight.
-- <ns>bufs is the zset of the options with votes buffered, "B:O" scored by
-- its oldest line's arrival (arrived x 64 + place: a vote's pairs in
-- order). A fold takes whole options, oldest first, so that all the votes
-- of an option buffered since the last fold make one write a board period
-- (the seed's star boards: many fans, few stars).
-- The root <ns>campaign keeps `fold_ms` (how old the oldest buffered vote
-- may grow before a vote folds), `fold_due` (Unix ms: when the oldest
-- buffered vote is fold_ms old; absent: nothing buffered) and `folded`
-- (Unix ms: every vote accepted before it is on the boards).
-- A buffered vote counts with the settings in force when it was accepted
-- (its weight is in its line; every call that changes settings or takes
-- votes back folds every buffer first, in the same call: lib/fold_all),
-- so a buffered campaign's boards equal an immediate one's, except that
-- "first" ties reached within one fold rank by the arrival of the
-- options' oldest votes in it. Needs rcall, fail (lib/prologue),
-- stored_int (lib/stored), board_settings, entry_work (lib/board),
-- apply_plan, apply_write (lib/apply).

-- The most votes one fold takes, and its bound of work: a unit about one
-- board entry written (lib/board's entry_work), a vote 1 (its line,
-- participants and statistics).
local FOLD_VOTES, FOLD_WORK = 1000, 4000

-- A line of a buffer of `board`, `option` as lib/apply's vote (with
-- `arrived`), or nil when it is not one.
local function buffered_vote(line, board, option)
  local f = {}
  for v in (line .. '\t'):gmatch('([^\t]*)\t') do f[#f + 1] = v end
  if f[1] ~= '1' or #f ~= 8 or f[5] == '' or not f[8]:find('^[1-9]%d*$') then return nil end
  local arrived, place, now = tonumber(f[2]), tonumber(f[3]), tonumber(f[4])
  if not arrived or not place or not now then return nil end
  return { arrived = arrived, place = place, now = now, user = f[5], channel = f[6], device = f[7],
    pairs = { { board = board, option = option, weight = tonumber(f[8]) } } }
end

-- The units of work of one option's entries on board `b` (lib/board).
local function fold_option_work(b)
  local n = #b.periods
  local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
  return entries * entry_work(b)
end

-- Fold the buffered votes of the campaign `root` (<ns>; s: its fold
-- settings, lib/fold_settings), whole options, oldest first, while they fit
-- `max` votes and FOLD_WORK; `all`: every buffered vote, or nothing
-- (before any write, answering nil) when they do not fit one call.
-- `now_ms`: the server's time. Returns how many votes it folded, how many
-- are left, the `folded` time, and how many entries it left out, beyond
-- the exact range (lib/apply).
local function fold_buffer(root, ns, s, max, all, now_ms)
  local bufs = ns .. 'bufs'
  local buffered = stored_int(rcall('HGET', root, 'buffered') or '0', 0, 999999999999999, root, 'buffered')
  if all and buffered > FOLD_VOTES then return nil end
  local heads = rcall('ZRANGE', bufs, 0, all and -1 or 99)
  local votes, boards, taken, work = {}, {}, {}, 0
  local sided, first_ties = false, false
  for _, head in ipairs(heads) do
    local board, option = head:match('^([^:]+):([^:]+)$')
    if not board then fail('INVALID_CONFIG', bufs .. ' holds "' .. head:sub(1, 80) .. '", not a board:option') end
    local b = boards[board]
    if not b then
      b = board_settings(ns, board)
      boards[board] = b
    end
    local cost = fold_option_work(b)
    local room = math.min(max - #votes, FOLD_WORK - work - cost)
    if room < 1 and #votes > 0 then
      if all then return nil end
      break
    end
    local key = ns .. 'buf:' .. head
    local n = rcall('LLEN', key)
    local k = math.min(n, math.max(room, 1))
    if all and k < n then return nil end
    local lines = rcall('LRANGE', key, 0, k - 1)
    for i, line in ipairs(lines) do
      local vote = buffered_vote(line, board, option)
      if not vote then fail('INVALID_CONFIG', key .. ' entry ' .. (i - 1) .. ' is not a buffered vote') end
      votes[#votes + 1] = vote
    end
    sided = sided or b.sides[1] ~= nil
    first_ties = first_ties or b.first
    work = work + cost + k
    taken[#taken + 1] = { head, key, k, n }
  end
  if #votes == 0 then
    return 0, buffered, buffered == 0 and now_ms or nil, 0
  end
  local ctx = { ns = ns, boards = boards, offset = s.offset, stats_keep = s.stats_keep, sided = sided,
    first_ties = first_ties, gone = math.floor(now_ms / 1000) }
  local p = apply_plan(ctx, votes)

  -- validated: the writes start here
  apply_write(ctx, p)
  for _, t in ipairs(taken) do
    local head, key, k, n = t[1], t[2], t[3], t[4]
    if k == n then
      rcall('DEL', key)
      rcall('ZREM', bufs, head)
    else
      rcall('LTRIM', key, k, -1)
      local next_vote = buffered_vote(rcall('LINDEX', key, 0), '', '')
      if next_vote then rcall('ZADD', bufs, buffer_score(next_vote.arrived, next_vote.place), head) end
    end
  end
  local left = math.max(buffered - #votes, 0)
  local folded = now_ms
  local oldest = rcall('ZRANGE', bufs, 0, 0, 'WITHSCORES')
  if oldest[1] then
    folded = math.min(math.floor(tonumber(oldest[2]) / 64), now_ms)
    rcall('HSET', root, 'buffered', string.format('%.0f', left), 'folded', string.format('%.0f', folded),
      'fold_due', string.format('%.0f', folded + s.fold_ms))
  else
    left = 0
    rcall('HSET', root, 'buffered', '0', 'folded', string.format('%.0f', folded))
    rcall('HDEL', root, 'fold_due')
  end
  return #votes, left, folded, p.overflow
end
