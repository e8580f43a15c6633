--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/unknown_campaign"
-- offset: the campaign's UTC offset, read from its root hash. Needs rcall
-- and fail (lib/prologue), stored_int (lib/stored) and unknown_campaign
-- (lib/unknown_campaign).

-- The offset in seconds (whole minutes within 14 hours);
-- REDVOTE_UNKNOWN_CAMPAIGN when the campaign does not exist,
-- REDVOTE_INVALID_CONFIG when the stored offset is corrupt.
local function campaign_offset(root)
  local offset = rcall('HGET', root, 'offset')
  if not offset then
    if rcall('EXISTS', root) == 0 then unknown_campaign(root) end
    return 0
  end
  local n = stored_int(offset, -50400, 50400, root, 'offset')
  if n % 60 ~= 0 then fail('INVALID_CONFIG', root .. ' offset is corrupt: "' .. offset:sub(1, 40) .. '"') end
  return n
end
