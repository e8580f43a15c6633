--- @include "lib/prologue"
--- @include "lib/site_config"
--- @include "lib/stored"
-- site_vote_settings: the settings a post or a vote applies, read and
-- checked in one call (lib/site_config holds the defaults and ranges).

-- What a post or a vote needs, from the HMGET lib/site_args' site_root
-- made (`stored`: layout, layout_next, vote_score, window, rankings):
-- vote_score and window (numbers), rankings, and vote_score as the digits
-- to pass to ZINCRBY; INVALID_CONFIG when a number is corrupt. A stored
-- default is taken as it is (Lua strings are interned: the comparison is
-- one pointer). HGETALL would cost less on a site without the hash, and
-- more on one with it.
local function vote_settings(prefix, stored)
  local cfg = { stored[3], stored[4], stored[5] }
  local vote_score, window = cfg[1] or DEFAULT_VOTE_SCORE, cfg[2] or DEFAULT_WINDOW
  return vote_score == DEFAULT_VOTE_SCORE and 432
      or stored_int(vote_score, 1, VOTE_SCORE_MAX, prefix .. CONFIG, 'vote_score'),
    window == DEFAULT_WINDOW and 604800 or stored_int(window, WINDOW_MIN, WINDOW_MAX, prefix .. CONFIG, 'window'),
    cfg[3] or '', vote_score
end
