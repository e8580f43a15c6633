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

-- What a post or a vote needs, in one HMGET: vote_score and window
-- (numbers) and rankings; INVALID_CONFIG when a number is corrupt.
local function vote_settings(prefix)
  local cfg = rcall('HMGET', prefix .. CONFIG, 'vote_score', 'window', 'rankings')
  local key = prefix .. CONFIG
  return stored_int(cfg[1] or DEFAULT_VOTE_SCORE, 1, VOTE_SCORE_MAX, key, 'vote_score'),
    stored_int(cfg[2] or DEFAULT_WINDOW, WINDOW_MIN, WINDOW_MAX, key, 'window'), cfg[3] or ''
end
