--- @include "lib/args"
--- @include "lib/layout"
-- campaign: the one key every campaign script takes. Needs one_key
-- (lib/args).

-- Campaign-window rate counters (<ns>rl:RULE:campaign) expire this long
-- after the campaign's end, not at it: a campaign extended after it ended
-- (configure moves `end` later) keeps "once per campaign" for a week.
local COUNTER_GRACE = 604800

-- KEYS[1] must be the campaign root "<ns>campaign" (REDVOTE_USAGE naming
-- `op` otherwise) of a campaign whose data layout this script knows
-- (lib/layout). Returns it, <ns>, from which every other key derives, and
-- the layout.
local function campaign_key(op)
  local root, ns = one_key(op, 'campaign', 'campaign root "<ns>campaign"')
  return root, ns, check_layout('campaign', root, rcall('HGET', root, 'layout'))
end
