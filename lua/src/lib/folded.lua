--- @include "lib/prologue"
--- @include "lib/stored"
-- folded: how far a buffered campaign's boards are folded (lib/fold), as
-- the reads answer it. Needs rcall (lib/prologue), stored_int (lib/stored).

-- nil on an immediate campaign; else the Unix ms (text) before which every
-- vote the campaign `root` accepted is on its boards: the server's time
-- when nothing is buffered, else the stored `folded` of the last fold.
local function folded_until(root)
  local c = rcall('HMGET', root, 'mode', 'fold_due', 'folded')
  if c[1] ~= 'buffered' then return nil end
  if not c[2] then
    local t = rcall('TIME')
    return string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
  end
  return string.format('%.0f', c[3] and stored_int(c[3], 0, 999999999999999, root, 'folded') or 0)
end
