--- @include "lib/prologue"
-- unknown_campaign: the refusal of a campaign that does not exist. Needs
-- fail (lib/prologue).

-- Refuses a campaign whose root `root` does not exist
-- (REDVOTE_UNKNOWN_CAMPAIGN), naming it as the API does: by its name in
-- the default namespace "{c:NAME}:", else by the namespace it was given.
local function unknown_campaign(root)
  local name = root:match('^{c:(.*)}:campaign$')
  if name then fail('UNKNOWN_CAMPAIGN', 'campaign "' .. name .. '" is not configured') end
  fail('UNKNOWN_CAMPAIGN', 'the campaign of namespace "' .. root:sub(1, -9) .. '" is not configured')
end
