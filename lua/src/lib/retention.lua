--- @include "lib/prologue"
-- retention: writes at an explicit time (campaign_vote's and
-- campaign_import's `time`) into a period whose boards are past their
-- retention. Needs fail (lib/prologue).

-- Refuses (REDVOTE_INVALID_PERIOD) a write into the period board `what`
-- ("shown:P", or the period P for both kinds) of board b whose expiry
-- (lib/board's expire_at; nil: kept) has come by the server's clock
-- `server_now`: that board is gone, and writing it would make it anew,
-- either expiring at once or, once its period is listed in <ns>periods:B,
-- with no expiry at all.
local function refuse_expired(b, what, expiry, server_now)
  if expiry and expiry <= server_now then
    fail('INVALID_PERIOD', what .. ' of board "' .. b.name .. '" is past its retention (it expired at ' .. expiry .. ')')
  end
end
