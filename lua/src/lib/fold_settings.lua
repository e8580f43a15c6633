--- @include "lib/prologue"
--- @include "lib/stored"
-- fold_settings: a buffered campaign's stored settings a fold reads, and
-- the order of its buffers (lib/fold). Needs stored_int (lib/stored).

-- The default fold_ms (campaign settings): how old a buffered vote may grow
-- before the next vote folds it.
local FOLD_MS_DEFAULT = 200

-- The campaign `root`'s fold settings from its stored fields (offset,
-- stats_keep, fold_ms: c[1..3]), parsed strictly (INVALID_CONFIG).
local function fold_settings(root, c)
  return {
    offset = c[1] and stored_int(c[1], -50400, 50400, root, 'offset') or 0,
    stats_keep = c[2] and stored_int(c[2], -1, 315360000, root, 'stats_keep'),
    fold_ms = c[3] and stored_int(c[3], 1, 3600000, root, 'fold_ms') or FOLD_MS_DEFAULT,
  }
end

-- The order of the options with votes buffered (<ns>bufs, lib/fold): a
-- line's arrival (server Unix ms) x 64 + its pair's place in its vote.
local function buffer_score(arrived, place)
  return string.format('%.0f', arrived * 64 + place)
end
