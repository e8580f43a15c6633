-- exact: Exact range of a score kept in units of 10^-decimals: a double holds
-- every integer below 2^53, but a decimal fraction stays exact (its nearest
-- double rounds back to it with a step below one unit) only below 2^51 units.
local function exact_limit(decimals)
  return decimals == 0 and 9007199254740992 or 2251799813685248
end
