--- @include "lib/prologue"
--- @include "lib/stored"
-- site_config: the site's settings, hash <prefix>redvote:config, where an
-- absent field means its default (below, the one place they are written).
-- configure.lua documents and changes them. Plain locals, no tables: post
-- and vote read them on every call.

local DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, DEFAULT_PAGE_SIZE = '432', '604800', '25'
-- The ranges configure.lua accepts, and the only stored values post and
-- vote use (anything else in the hash is refused as corrupt).
local VOTE_SCORE_MAX, WINDOW_MIN, WINDOW_MAX = 1000000, 60, 315360000
-- The settings hash is <prefix> .. CONFIG.
local CONFIG = 'redvote:config'

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
