--- @include "lib/prologue"
-- site_config: the site's settings, hash <prefix>redvote:config, where an
-- absent field means its default (below, the one place they are written).
-- configure.lua documents and changes them. Plain locals, no tables: post
-- and vote read them on every call. No function either (each is a closure
-- made on every call): the parser of stored numbers, lib/stored, is
-- included by the libs that parse (site_vote_settings, site_page), and the
-- vote includes those only on the path that needs them.

local DEFAULT_VOTE_SCORE, DEFAULT_WINDOW, DEFAULT_PAGE_SIZE = '432', '604800', '25'
-- (lib/site_vote_settings answers the first two as the numbers 432 and 604800)
-- The ranges configure.lua accepts, and the only stored values post and
-- vote use (anything else in the hash is refused as corrupt).
local VOTE_SCORE_MAX, WINDOW_MIN, WINDOW_MAX = 1000000, 60, 315360000
-- The settings hash is <prefix> .. CONFIG.
local CONFIG = 'redvote:config'
