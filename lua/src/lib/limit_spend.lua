--- @include "lib/prologue"
--- @include "lib/campaign"
-- limit_spend: spending what limit_plan (lib/limits) planned and
-- limit_evaluate passed, in campaign_vote after its other writes. Needs
-- rcall (lib/prologue) and COUNTER_GRACE (lib/campaign).

-- Spend: only after every check passed; one write a counter (a new counter
-- is created with its expiry, an existing one already has it; a
-- campaign-window hash gets the campaign's end + COUNTER_GRACE (lib/campaign)
-- when a subject is new), and one HSET for every counter of the voter's
-- hash (lib/limits), with an EXPIREAT when its expiry grows; a voter's
-- bucket (layout 3) gets HINCRBY, and its window's end as expiry when the
-- voter's field is new (the bucket may be new).
local function limit_spend(checks)
  local mine, expiry = {}, checks.voter_expiry
  for _, c in ipairs(checks) do
    if c.voter then
      -- the voter's hash: every field in one HSET below
      mine[#mine + 1] = c.field
      if c.rule.rolling then
        mine[#mine + 1] = c.new_tat
        if c.expire_at > expiry then expiry = c.expire_at end
      else
        mine[#mine + 1] = c.finish .. ':' .. (c.used + c.need) .. ':' .. c.rule.window
        if c.finish > expiry then expiry = c.finish end
      end
    elseif c.bucket then
      -- a bucket of voters (campaign layout 3): a new field may be the
      -- bucket's first, which expires with its window
      if rcall('HINCRBY', c.key, c.field, c.need) == c.need then rcall('EXPIREAT', c.key, c.finish) end
    elseif c.field then
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
  if #mine > 0 then
    -- The hash lives as long as its latest counter: its expiry is only
    -- raised (recorded in "@", read with the counters: no TTL call).
    local raise = expiry > checks.voter_expiry
    if raise then
      mine[#mine + 1] = '@'
      mine[#mine + 1] = string.format('%d', expiry)
    end
    rcall('HSET', checks.voter_key, unpack(mine))
    if raise then rcall('EXPIREAT', checks.voter_key, string.format('%d', expiry)) end
  end
end
