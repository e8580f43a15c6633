--- @include "lib/prologue"
--- @include "lib/site_config"
-- site_vote_settings: the settings a post or a vote applies, read and
-- checked in one call (lib/site_config holds the defaults and ranges).

-- What a post or a vote needs, in one read: vote_score and window
-- (numbers), rankings, and vote_score as the digits to pass to ZINCRBY;
-- INVALID_CONFIG when a number is corrupt. HGETALL, not HMGET: a site on
-- the defaults has no hash, and an empty reply is the cheapest one.
local function vote_settings(prefix)
  local cfg = rcall('HGETALL', prefix .. CONFIG)
  if #cfg == 0 then return 432, 604800, '', DEFAULT_VOTE_SCORE end
  local vote_score, window, rankings = DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, ''
  for i = 1, #cfg, 2 do
    local field = cfg[i]
    if field == 'vote_score' then
      vote_score = cfg[i + 1]
    elseif field == 'window' then
      window = cfg[i + 1]
    elseif field == 'rankings' then
      rankings = cfg[i + 1]
    end
  end
  local key = prefix .. CONFIG
  return stored_int(vote_score, 1, VOTE_SCORE_MAX, key, 'vote_score'),
    stored_int(window, WINDOW_MIN, WINDOW_MAX, key, 'window'), rankings, vote_score
end
