--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/apply"
-- fold: a buffered campaign's votes (campaign settings `mode` "buffered")
-- are accepted by campaign_vote into <ns>buf, and written to the boards
-- here, many at once (lib/apply), in arrival order, in one call: a fold is
-- atomic, and what it folds leaves the buffer in the same call.
--
-- <ns>buf is a list, oldest first, of one line a vote, fields separated by
-- a tab (no name, user or number holds one):
--   1, arrived (server Unix ms), time (the vote's Unix second), user,
--   channel, device, then board, option, weight for each pair.
-- The root <ns>campaign keeps `fold_ms` (how old the oldest buffered vote
-- may grow before a vote folds), `fold_due` (Unix ms: when the oldest
-- buffered vote is fold_ms old; absent: nothing buffered) and `folded`
-- (Unix ms: every vote accepted before it is on the boards).
-- A buffered vote counts with the settings in force when it was accepted
-- (its weight is in its line; every call that changes settings or takes
-- votes back folds the buffer first, in the same call: fold_all), so a
-- buffered campaign's boards equal an immediate one's, except that "first"
-- ties within one fold rank by the arrival of the options' first votes in
-- it. Needs rcall, fail (lib/prologue), stored_int (lib/stored),
-- board_settings (lib/board), apply_plan, apply_write (lib/apply).

-- The most votes one fold takes, and its bound of work: a unit about one
-- command (lib/board's CALL_WORK), a vote 1 (its line, participants and
-- statistics), each distinct (board, option) of a fold its entries' units
-- (lib/board's entry_work) for each period kind, the carry's too.
local FOLD_VOTES, FOLD_WORK = 1000, 1200

-- The default fold_ms (campaign settings): how old a buffered vote may grow
-- before the next vote folds it.
local FOLD_MS_DEFAULT = 200

-- A line of <ns>buf as a vote (lib/apply's form, with `arrived`), or nil
-- when it is not one.
local function buffered_vote(line)
  local f = {}
  for v in (line .. '\t'):gmatch('([^\t]*)\t') do f[#f + 1] = v end
  if f[1] ~= '1' or #f < 9 or (#f - 6) % 3 ~= 0 then return nil end
  local arrived, now = tonumber(f[2]), tonumber(f[3])
  if not arrived or not now or f[4] == '' then return nil end
  local vote = { arrived = arrived, now = now, user = f[4], channel = f[5], device = f[6], pairs = {} }
  for i = 7, #f, 3 do
    local w = f[i + 2]
    if not w:find('^[1-9]%d*$') then return nil end
    vote.pairs[#vote.pairs + 1] = { board = f[i], option = f[i + 1], weight = tonumber(w) }
  end
  return vote
end

-- The units of work of one (board, option) on board `b` (lib/board).
local function fold_pair_work(b)
  local n = #b.periods
  local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
  return entries * entry_work(b)
end

-- Fold up to `max` of the oldest buffered votes of the campaign `root`
-- (<ns>, its stored offset and stats_keep: s) while they fit FOLD_WORK;
-- `all`: every buffered vote, or nothing (before any write, answering
-- nil) when they do not fit one call. `now_ms`: the server's time.
-- Returns how many it folded, how many are left, the `folded` time, and
-- how many entries it left out, beyond the exact range (lib/apply).
local function fold_buffer(root, ns, s, max, all, now_ms)
  local buf = ns .. 'buf'
  local n = rcall('LLEN', buf)
  if all and n > FOLD_VOTES then return nil end
  local overflow
  local lines = n > 0 and rcall('LRANGE', buf, 0, math.min(max, n) - 1) or {}
  local votes, boards, work, seen = {}, {}, 0, {}
  local sided, first_ties = false, false
  for i, line in ipairs(lines) do
    local vote = buffered_vote(line)
    if not vote then fail('INVALID_CONFIG', buf .. ' entry ' .. (i - 1) .. ' is not a buffered vote') end
    local w = 1
    for _, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      if not b then
        b = board_settings(ns, pair.board)
        boards[pair.board] = b
        sided = sided or b.sides[1] ~= nil
        first_ties = first_ties or b.first
      end
      local id = pair.board .. '\0' .. pair.option
      w = w + 1
      if not seen[id] then seen[id] = true; w = w + fold_pair_work(b) end
    end
    if i > 1 and work + w > FOLD_WORK then
      if all then return nil end
      break
    end
    work = work + w
    votes[i] = vote
  end
  if #votes == 0 then return 0, n, n == 0 and now_ms or nil, 0 end
  do
    local ctx = { ns = ns, boards = boards, offset = s.offset, stats_keep = s.stats_keep, sided = sided,
      first_ties = first_ties, gone = math.floor(now_ms / 1000) }
    local p = apply_plan(ctx, votes)
    apply_write(ctx, p)
    rcall('LTRIM', buf, #votes, -1)
    overflow = p.overflow
  end
  local left, folded = n - #votes, now_ms
  if left > 0 then
    local next_vote = buffered_vote(rcall('LINDEX', buf, 0))
    local arrived = next_vote and next_vote.arrived or now_ms
    folded = math.min(arrived, now_ms)
    rcall('HSET', root, 'folded', string.format('%.0f', folded), 'fold_due',
      string.format('%.0f', arrived + s.fold_ms))
  else
    rcall('HSET', root, 'folded', string.format('%.0f', folded))
    rcall('HDEL', root, 'fold_due')
  end
  return #votes, left, folded, overflow
end

-- The campaign `root`'s fold settings from its stored fields (offset,
-- stats_keep, fold_ms: c[1..3]), parsed strictly (INVALID_CONFIG).
local function fold_settings(root, c)
  return {
    offset = c[1] and stored_int(c[1], -50400, 50400, root, 'offset') or 0,
    stats_keep = c[2] and stored_int(c[2], -1, 315360000, root, 'stats_keep'),
    fold_ms = c[3] and stored_int(c[3], 1, 3600000, root, 'fold_ms') or FOLD_MS_DEFAULT,
  }
end
