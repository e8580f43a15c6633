--- @include "lib/prologue"
--- @include "lib/fold"
-- fold_all: the calls that change a campaign's settings or take votes back
-- (campaign_configure, campaign_void, campaign_void_range) fold a buffered
-- campaign's votes first, in the same call, so that each counts with the
-- settings it was accepted under and a void finds it on the boards.
-- Needs rcall, fail (lib/prologue), fold_buffer, fold_settings, FOLD_VOTES
-- (lib/fold).

-- Before a call that changes settings or takes votes back: fold every
-- vote a buffered campaign holds (nothing on an immediate one), or refuse
-- REDVOTE_UNFOLDED before any write when they are more than one call
-- folds. Call it after the caller's own checks and before its first
-- write. Returns whether it folded any vote (the caller's reads since are
-- then stale).
local function fold_all(root, ns)
  local c = rcall('HMGET', root, 'mode', 'offset', 'stats_keep', 'fold_ms')
  if c[1] ~= 'buffered' then return false end
  table.remove(c, 1)
  local t = rcall('TIME')
  local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local folded = fold_buffer(root, ns, fold_settings(root, c), FOLD_VOTES, true, now_ms)
  if not folded then
    fail('UNFOLDED', (rcall('HGET', root, 'buffered') or '?') .. ' buffered votes are more than one call folds: fold them first'
      .. ' (campaign_fold), then send this again')
  end
  return folded > 0
end
