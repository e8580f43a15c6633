--- @include "lib/prologue"
--- @include "lib/campaign"
-- limit_spend: spending what limit_plan (lib/limits) planned and
-- limit_evaluate passed, in campaign_vote after its other writes. Needs
-- rcall (lib/prologue) and COUNTER_GRACE (lib/campaign).

-- Spend: only after every check passed; one write a counter (a new counter
-- is created with its expiry, an existing one already has it; a
-- campaign-window hash gets the campaign's end + COUNTER_GRACE (lib/campaign)
-- when a subject is new).
local function limit_spend(checks)
  for _, c in ipairs(checks) do
    if c.field then
      -- a campaign-window hash: a new subject (re)sets the hash's expiry
      if rcall('HINCRBY', c.key, c.field, c.need) == c.need and c.finish then
        rcall('EXPIREAT', c.key, c.finish + COUNTER_GRACE)
      end
    elseif c.rule.rolling then
      rcall('SET', c.key, c.new_tat, 'EXAT', c.expire_at)
    elseif c.existed then
      rcall('INCRBY', c.key, c.need)
    elseif c.finish then
      rcall('SET', c.key, c.need, 'EXAT', c.finish)
    else
      rcall('SET', c.key, c.need)
    end
  end
end
