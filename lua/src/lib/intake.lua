--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/stats"
--- @include "lib/apply"
--- @include "lib/fold"
--- @include "lib/vote_added"
-- intake: campaign_vote on a buffered campaign. The vote is accepted
-- exactly as an immediate one (every check, the rate limits spent, its id
-- recorded, the vote log), and appended to <ns>buf (lib/fold) instead of
-- written to the boards; the call folds the buffer when its oldest vote
-- is fold_ms old or it holds FOLD_AUTO votes. Needs rcall, fail
-- (lib/prologue), stored_int (lib/stored), stats_buckets (lib/stats),
-- apply_plan (lib/apply), fold_buffer, fold_settings, FOLD_VOTES
-- (lib/fold), vote_added, log_vote (lib/vote_added).

-- A vote that finds this many buffered (its own included) folds them.
local FOLD_AUTO = 256

-- Accept `vote` (lib/apply's form; ctx: lib/apply's) into the buffer of the
-- campaign `root` (<ns>; c: its stored fields as campaign_vote read them,
-- c[1] offset, c[9] stats_keep, c[13] fold_ms, c[14] fold_due, c[15]
-- folded). o: the vote's checks to spend and `spend`, its id, request,
-- `record`, id_ttl, vote_log, and `server_ms` (the server's Unix ms).
-- Answers each pair as { board, option, {}, "", folded } (campaign_vote's
-- header).
local function buffer_vote(root, ns, c, ctx, vote, o)
  local s = fold_settings(root, { c[1], c[9], c[13] })
  local due = c[14] and stored_int(c[14], 0, 999999999999999, root, 'fold_due')
  local folded = c[15] and stored_int(c[15], 0, 999999999999999, root, 'folded') or 0
  -- the entries the vote will add, planned without a read: what its record
  -- and the log keep, and the explicit clock's retention check
  local info
  if o.request or o.vote_log > 0 or ctx.refuse then
    ctx.dry = true
    local p = apply_plan(ctx, { vote })
    if o.request or o.vote_log > 0 then
      local names = stats_buckets(vote.now, ctx.offset, vote.periods_at)
      info = vote_added(p.order, vote.pairs, ctx.boards, vote, { hour = names.hour[1], day = names.day[1] })
    end
  end

  -- validated: the writes start here
  if o.checks then o.spend(o.checks) end
  local line = { '1', string.format('%.0f', o.server_ms), string.format('%.0f', vote.now), vote.user, vote.channel,
    vote.device }
  for _, pair in ipairs(vote.pairs) do
    line[#line + 1] = pair.board; line[#line + 1] = pair.option; line[#line + 1] = tostring(pair.weight)
  end
  local n = rcall('RPUSH', ns .. 'buf', table.concat(line, '\t'))
  if n == 1 then
    due = o.server_ms + s.fold_ms
    rcall('HSET', root, 'fold_due', string.format('%.0f', due))
  end
  if o.vote_log > 0 then info.l = log_vote(ns, o.vote_log, vote, o.id, info) end
  if n >= FOLD_AUTO or (due and o.server_ms >= due) then
    -- a fold refuses only before its first write (a buffer a hand
    -- corrupted: campaign check reports it); the vote stands either way
    local ok, _, _, at = pcall(fold_buffer, root, ns, s, FOLD_VOTES, false, o.server_ms)
    if ok then folded = at or folded end
  end
  local text = string.format('%.0f', folded)
  local reply = {}
  for i, pair in ipairs(vote.pairs) do reply[i] = { pair.board, pair.option, {}, '', text } end
  if o.request then o.record(ns, o.id, o.request, reply, o.id_ttl, info) end
  return reply
end
