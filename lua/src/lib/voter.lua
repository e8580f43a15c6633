--- @include "lib/prologue"
--- @include "lib/user"
--- @include "lib/name_arg"
-- voter: who casts a campaign vote, as campaign_vote, campaign_limits and
-- campaign_limits_reset take it. Needs check_user (lib/user) and
-- check_name (lib/name_arg).

-- The voter: a user id, and the channel and device rules may count by ("":
-- none), names.
local function check_voter(user, channel, device)
  check_user(user)
  if channel ~= '' then check_name(channel) end
  if device ~= '' then check_name(device) end
end
