--- @include "lib/prologue"
-- stored: the one parser of stored integer settings (a site's
-- redvote:config, campaign, board and weight hashes, and the numbers of the
-- stored `limits` JSON). Lua's
-- tonumber takes nan, inf, 1e400, 0x10 and ' 5'; a stored setting is
-- trusted only as written by campaign_configure. Needs fail (lib/prologue).
-- One function on purpose: every helper a script defines is a closure per
-- call, and the vote runs this on its hot path.

-- `v` (a string of decimal digits with an optional minus sign, or a JSON
-- number that is a whole number) as a number in lo..hi; otherwise refuses
-- with REDVOTE_INVALID_CONFIG naming the key and the field.
local function stored_int(v, lo, hi, key, field)
  local n
  if type(v) == 'string' then
    if #v <= 16 and v:find('^%-?%d+$') then n = tonumber(v) end
  elseif type(v) == 'number' and v == math.floor(v) then
    n = v
  end
  if not n or n < lo or n > hi then
    fail('INVALID_CONFIG', key .. ' ' .. field .. ' is corrupt: "' .. tostring(v):sub(1, 40) .. '"')
  end
  return n
end
