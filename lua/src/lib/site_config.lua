--- @include "lib/prologue"
-- site_config: the site's settings, hash <prefix>redvote:config, where an
-- absent field means its default (below, the one place they are written).
-- configure.lua documents and changes them. Plain locals, no tables: post
-- and vote read them on every call.

local DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, DEFAULT_PAGE_SIZE = '432', '604800', '25'
-- The settings hash is <prefix> .. CONFIG.
local CONFIG = 'redvote:config'

-- What a post or a vote needs, in one HMGET: vote_score and window
-- (numbers) and rankings; INVALID_CONFIG when a number is corrupt.
local function vote_settings(prefix)
  local cfg = rcall('HMGET', prefix .. CONFIG, 'vote_score', 'window', 'rankings')
  local vote_score = tonumber(cfg[1] or DEFAULT_VOTE_SCORE)
  local window = tonumber(cfg[2] or DEFAULT_WINDOW)
  if not vote_score or not window then fail('INVALID_CONFIG', prefix .. CONFIG .. ' holds a non-number') end
  return vote_score, window, cfg[3] or ''
end
