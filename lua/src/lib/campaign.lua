--- @include "lib/args"
-- campaign: the one key every campaign script takes. Needs one_key
-- (lib/args).

-- KEYS[1] must be the campaign root "<ns>campaign" (REDVOTE_USAGE naming
-- `op` otherwise). Returns it and <ns>, from which every other key derives.
local function campaign_key(op)
  return one_key(op, 'campaign', 'campaign root "<ns>campaign"')
end
