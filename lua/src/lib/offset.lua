--- @include "lib/prologue"
-- offset: the campaign's UTC offset, read from its root hash. Needs rcall
-- and fail (lib/prologue).

-- The offset in seconds; REDVOTE_UNKNOWN_CAMPAIGN when the campaign does
-- not exist.
local function campaign_offset(root)
  local offset = rcall('HGET', root, 'offset')
  if not offset and rcall('EXISTS', root) == 0 then fail('UNKNOWN_CAMPAIGN', root) end
  return tonumber(offset or 0)
end
