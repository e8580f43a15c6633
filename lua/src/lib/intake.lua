--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/fold_settings"
--- @include "lib/entries"
--- @include "lib/vote_added"
-- intake: campaign_vote on a buffered campaign. The vote is accepted
-- exactly as an immediate one (every check, the rate limits spent, its id
-- recorded, the vote log), and appended to its options' buffers
-- (lib/fold) instead of written to the boards; the call folds when its
-- oldest buffered vote is fold_ms old or FOLD_AUTO pairs wait. Needs rcall (lib/prologue),
-- stored_int (lib/stored), fold_settings, buffer_score
-- (lib/fold_settings), planned_entries (lib/entries), vote_recorded,
-- log_vote (lib/vote_added); the fold
-- (lib/fold) comes from o.writers(), made only when the vote folds.
-- A vote that folds does so before its own writes: the fold takes the
-- votes before it, and this one waits for the next.

-- A vote that finds this many pairs buffered (its own included) folds.
local FOLD_AUTO = 1000

-- Accept `vote` (lib/apply's form; ctx: lib/apply's) into the buffer of the
-- campaign `root` (<ns>; c: its stored fields as campaign_vote read them,
-- c[1] offset, c[9] stats_keep, c[13] fold_ms, c[14] fold_due, c[15]
-- folded). o: `writers`, the vote's checks to spend and `spend`, its id,
-- request, `record`, id_ttl, vote_log, and `server_ms` (the server's Unix
-- ms).
-- Answers each pair as { board, option, {}, "", folded } (campaign_vote's
-- header).
local function buffer_vote(root, ns, c, ctx, vote, o)
  local s = fold_settings(root, { c[1], c[9], c[13] })
  local due = c[14] and stored_int(c[14], 0, 999999999999999, root, 'fold_due')
  local folded = c[15] and stored_int(c[15], 0, 999999999999999, root, 'folded') or 0
  local buffered = c[16] and stored_int(c[16], 0, 999999999999999, root, 'buffered') or 0
  -- what its record and the log keep: what plans its entries again
  -- (lib/vote_added's vote_recorded)
  local info
  -- the explicit clock's retention check plans the entries
  if ctx.refuse then planned_entries(ctx, { vote }) end
  if o.request or o.vote_log > 0 then info = vote_recorded(vote, ctx.boards, ctx.offset) end

  -- the fold this vote makes, before its own writes: a fold refuses only
  -- before its first write (a corrupt buffer: INVALID_CONFIG), so a
  -- refused call writes nothing; the vote waits for the next fold
  if buffered + #vote.pairs >= FOLD_AUTO or (due and o.server_ms >= due) then
    local _, _, at = o.writers().fold_buffer(root, ns, s, 1000, false, o.server_ms)
    folded = at or folded
  end

  -- validated: the writes start here
  if o.checks then o.spend(o.checks) end
  -- a line a pair, in its option's buffer (lib/fold's header)
  local ms = string.format('%.0f', o.server_ms)
  local tail = '\t' .. string.format('%.0f', vote.now) .. '\t' .. vote.user .. '\t' .. vote.channel .. '\t'
    .. vote.device .. '\t'
  for i, pair in ipairs(vote.pairs) do
    local head = pair.board .. ':' .. pair.option
    if rcall('RPUSH', ns .. 'buf:' .. head, '1\t' .. ms .. '\t' .. (i - 1) .. tail .. pair.weight) == 1 then
      rcall('ZADD', ns .. 'bufs', buffer_score(o.server_ms, i - 1), head)
    end
  end
  if rcall('HINCRBY', root, 'buffered', #vote.pairs) == #vote.pairs then
    rcall('HSET', root, 'fold_due', string.format('%.0f', o.server_ms + s.fold_ms))
  end
  if o.vote_log > 0 then info.l = log_vote(ns, o.vote_log, vote, o.id, info) end
  local text = string.format('%.0f', folded)
  local reply = {}
  for i, pair in ipairs(vote.pairs) do reply[i] = { pair.board, pair.option, {}, '', text } end
  -- its id's record keeps `folded`, not the reply: a replay answers the
  -- call's own pairs with it (lib/vote_id)
  if o.request then o.record(ns, o.id, o.request, text, o.id_ttl, info) end
  return reply
end
