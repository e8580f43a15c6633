--- @include "lib/periods"
-- stats_buckets: the statistics buckets a vote counts in (lib/stats):
-- its hour and its day in the campaign's offset. Needs period
-- (lib/periods).

local STATS_KINDS = { 'hour', 'day' }

-- The hour and day buckets of a vote at `now`: { hour = { name, end },
-- day = { name, end } }, from `periods_at` when it holds them (the vote's
-- own cache of period names, lib/apply).
local function stats_buckets(now, offset, periods_at)
  local names = {}
  for _, kind in ipairs(STATS_KINDS) do
    local known = periods_at and periods_at[kind]
    if known then
      names[kind] = known -- { name, end, ... }
    else
      local name, _, finish = period(kind, now, offset)
      names[kind] = { name, finish }
    end
  end
  return names
end
