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
-- stored_int (lib/stored), board_settings, entry_work, CALL_WORK (lib/board),
-- apply_plan, apply_write (lib/apply).

-- The most pairs one fold takes. Its work is bounded as every writer's
-- (lib/board's CALL_WORK): an option's entries (fold_option_work) and 3
-- units every 2 lines (parsing, participants, statistics). On 100-member
-- boards, where the update of a fractional score walks the listpack, that
-- keeps a fold near 2 ms (docs/benchmark.md, Hot campaigns).
local FOLD_VOTES = 1000

-- A line of a buffer (lib/fold's header): arrived, place, time, user,
-- channel, device, weight (all text), or nil when it is not one.
local function buffered_line(line)
  return line:match('^1\t(%d+)\t(%d%d?)\t(%d+)\t([^\t]+)\t([^\t]*)\t([^\t]*)\t([1-9]%d*)$')
end

-- The lines of a buffer of `board`, `option` as lib/apply's votes: the
-- like ones (same second, channel, device and weight) one vote with their
-- users and count, so that a fold plans each board entry once a second,
-- not once a vote. Appended to `votes`; refuses a line that is not one
-- (INVALID_CONFIG naming `key`).
local function buffered_votes(lines, key, board, option, votes)
  local like = {}
  for i, line in ipairs(lines) do
    local _, _, now, user, channel, device, weight = buffered_line(line)
    if not now then fail('INVALID_CONFIG', key .. ' entry ' .. (i - 1) .. ' is not a buffered vote') end
    local id = now .. '\t' .. weight .. '\t' .. channel .. '\t' .. device
    local vote = like[id]
    if vote then
      vote.users[#vote.users + 1] = user
      vote.pairs[1].count = vote.pairs[1].count + 1
    else
      vote = { now = tonumber(now), channel = channel, device = device, users = { user },
        pairs = { { board = board, option = option, weight = tonumber(weight), count = 1 } } }
      like[id] = vote
      votes[#votes + 1] = vote
    end
  end
end

-- The units of work of one option's entries on board `b` (lib/board).
local function fold_option_work(b)
  local n = #b.periods
  local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
  return entries * entry_work(b)
end

-- Fold the buffered votes of the campaign `root` (<ns>; s: its fold
-- settings, lib/fold_settings), whole options, oldest first, while they fit
-- `max` votes and CALL_WORK; `all`: every buffered vote, or nothing
-- (before any write, answering nil) when they do not fit one call.
-- `now_ms`: the server's time. Returns how many votes it folded, how many
-- are left, the `folded` time, and how many entries it left out, beyond
-- the exact range (lib/apply).
local function fold_buffer(root, ns, s, max, all, now_ms)
  local bufs = ns .. 'bufs'
  local buffered = stored_int(rcall('HGET', root, 'buffered') or '0', 0, 999999999999999, root, 'buffered')
  if all and buffered > FOLD_VOTES then return nil end
  local heads = rcall('ZRANGE', bufs, 0, all and -1 or 99)
  local votes, boards, taken, work, pairs_n = {}, {}, {}, 0, 0
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
    local room = math.min(max - pairs_n, math.floor((CALL_WORK - work - cost) * 2 / 3))
    if room < 1 and pairs_n > 0 then
      if all then return nil end
      break
    end
    local key = ns .. 'buf:' .. head
    local n = rcall('LLEN', key)
    local k = math.min(n, math.max(room, 1))
    if all and k < n then return nil end
    buffered_votes(rcall('LRANGE', key, 0, k - 1), key, board, option, votes)
    pairs_n = pairs_n + k
    sided = sided or b.sides[1] ~= nil
    first_ties = first_ties or b.first
    work = work + cost + math.ceil(k * 3 / 2)
    taken[#taken + 1] = { head, key, k, n }
  end
  if pairs_n == 0 then
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
      local arrived, place = buffered_line(rcall('LINDEX', key, 0) or '')
      if arrived then rcall('ZADD', bufs, buffer_score(tonumber(arrived), tonumber(place)), head) end
    end
  end
  local left = math.max(buffered - pairs_n, 0)
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
  return pairs_n, left, folded, p.overflow
end
