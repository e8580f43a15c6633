--- @include "lib/prologue"
-- pair_args: the argument count of a script that takes a few fixed
-- arguments, then pairs (board, option / option, votes). Needs fail
-- (lib/prologue).

-- ARGV must hold `fixed` arguments, then lo..hi pairs (REDVOTE_USAGE:
-- "<op> takes <usage>"; beyond hi pairs `too_many` instead, when given).
local function pair_argc(op, fixed, lo, hi, usage, too_many)
  local n = #ARGV - fixed
  if n < 2 * lo or n % 2 ~= 0 or (n > 2 * hi and not too_many) then fail('USAGE', op .. ' takes ' .. usage) end
  if n > 2 * hi then fail('USAGE', too_many) end
end
