--- @include "lib/prologue"
--- @include "lib/counter_grace"
-- limit_spend: spending what limit_plan (lib/limits) planned and
-- limit_evaluate passed, in campaign_vote after its other writes. Needs
-- rcall (lib/prologue) and COUNTER_GRACE (lib/counter_grace).

-- Spend: only after every check passed; one write a counter (a new counter
-- is created with its expiry, an existing one already has it; a
-- campaign-window hash gets the campaign's end + COUNTER_GRACE when a
-- subject is new), and one HSET for every counter of the voter's
-- hash (lib/limits), with an EXPIREAT when its expiry grows; a voter's
-- bucket (layout 3) gets HINCRBY, and its window's end as expiry when the
-- voter's field is new (the bucket may be new).
local function limit_spend(checks)
  local format = string.format
  local mine, expiry, n = nil, checks.voter_expiry, 0
  -- the numbers redis.call is given, as their decimal text (what it would
  -- write with %.17g: the same digits for these integers): a vote's need is
  -- the same for every counter but in a batch (formatted once a value),
  -- a window's end once a window
  local need_text, text_of, finish_text, text_for = nil, nil, nil, nil
  for i = 1, #checks do
    local c = checks[i]
    -- the check's slots (lib/limits, limit_plan)
    local rule, key, field, need, finish = c[1], c[2], c[3], c[4], c[6]
    if need ~= text_of then need_text, text_of = format('%d', need), need end
    if c[8] then
      -- the voter's hash: every field in one HSET below
      mine = mine or {}
      mine[n + 1] = field
      if rule.rolling then
        mine[n + 2] = c[16] -- the new TAT
        if c[17] > expiry then expiry = c[17] end
      else
        mine[n + 2] = finish .. ':' .. (c[12] + need) .. ':' .. rule.window -- used + need
        if finish > expiry then expiry = finish end
      end
      n = n + 2
    elseif c[9] then
      -- a bucket of voters (campaign layout 3): a new field may be the
      -- bucket's first, which expires with its window
      if rcall('HINCRBY', key, field, need_text) == need then
        if finish ~= text_for then finish_text, text_for = format('%d', finish), finish end
        rcall('EXPIREAT', key, finish_text)
      end
    elseif field then
      -- a campaign-window hash: a new subject (re)sets the hash's expiry
      if rcall('HINCRBY', key, field, need_text) == need and finish then
        rcall('EXPIREAT', key, format('%d', finish + COUNTER_GRACE))
      end
    elseif rule.rolling then
      rcall('SET', key, c[16], 'EXAT', format('%d', c[17]))
    elseif c[11] then -- existed
      rcall('INCRBY', key, need_text)
    elseif finish then
      if finish ~= text_for then finish_text, text_for = format('%d', finish), finish end
      rcall('SET', key, need_text, 'EXAT', finish_text)
    else
      rcall('SET', key, need_text)
    end
  end
  if n > 0 then
    -- The hash lives as long as its latest counter: its expiry is only
    -- raised (recorded in "@", read with the counters: no TTL call).
    local raise = expiry > checks.voter_expiry
    if raise then
      mine[n + 1] = '@'
      mine[n + 2] = format('%d', expiry)
    end
    rcall('HSET', checks.voter_key, unpack(mine))
    if raise then rcall('EXPIREAT', checks.voter_key, mine[n + 2]) end
  end
end
