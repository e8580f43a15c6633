--- @include "lib/clock"
--- @include "lib/offset"
--- @include "lib/board"
--- @include "lib/board_key"
--- @include "lib/ranks"
-- board_view: the period boards a read (top, standing, around) looks at.
-- Needs clock (lib/clock), campaign_offset (lib/offset), board_settings
-- (lib/board) and board_key (lib/board_key).

-- The moment a read looks at: its `time` argument (checked first), then
-- the campaign's UTC offset (REDVOTE_UNKNOWN_CAMPAIGN). Returns both.
local function read_time(root, at)
  local now = clock(at)
  return now, campaign_offset(root)
end

-- Board `board`, kind "real" | "shown", period `selector` at `now` in the
-- campaign's UTC `offset`, checked in that order (see board_settings and
-- board_key): { b = settings, r (the board as lib/ranks reads it), name
-- (period name), decimals (scores are shown with; 0 on real boards) }.
local function board_view(ns, board, kind, selector, now, offset)
  local b = board_settings(ns, board)
  local key, name = board_key(ns, b, kind, selector, now, offset)
  return { b = b, r = ranked(ns, b, key), name = name, decimals = kind == 'real' and 0 or b.decimals }
end
