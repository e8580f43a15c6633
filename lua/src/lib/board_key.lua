--- @include "lib/prologue"
--- @include "lib/periods"
-- board_key: the keys of one period board of a board, from a period
-- selector. Needs fail (lib/prologue) and period, parse_period
-- (lib/periods); `b` is what board_settings (lib/board) returns.

-- The board key <ns>b:B:KIND:P (its side keys: lib/order) and the period
-- name P for kind "real" or "shown" and a period selector: "hour",
-- "day", "week", "month" (the one holding `now`), "total", or a named
-- period such as "day:2026-03-17". shift = -1 gives the period before it
-- (nil for total). Refuses, as REDVOTE_INVALID_PERIOD, another kind, a
-- malformed name and periods the board does not keep.
local function board_key(ns, b, kind, selector, now, offset, shift)
  if kind ~= 'real' and kind ~= 'shown' then
    fail('INVALID_PERIOD', 'board kind must be real or shown, got "' .. kind:sub(1, 40) .. '"')
  end
  local ptype, t = selector, now
  if selector:find(':') then
    ptype, t = parse_period(selector, offset)
    if not ptype then fail('INVALID_PERIOD', '"' .. selector:sub(1, 80) .. '" is not a period name') end
  end
  if not b.keeps[ptype] then
    fail('INVALID_PERIOD', 'board "' .. b.name .. '" keeps no ' .. ptype:sub(1, 40) .. ' boards')
  end
  local name, start = period(ptype, t, offset)
  if shift == -1 then
    if not start then return nil end
    name = period(ptype, start - 1, offset)
  end
  return ns .. 'b:' .. b.name .. ':' .. kind .. ':' .. name, name
end
