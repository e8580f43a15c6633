--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/args"
-- clock: the `time` argument of campaign scripts. Needs rcall (lib/prologue)
-- and integer_arg (lib/args).

-- "" (or nil) for the server's clock, or explicit integer Unix seconds
-- (test path; REDVOTE_INVALID_NUMBER otherwise). Returns the second, then
-- the microsecond within it (the server's; 0 on the explicit clock), for
-- rolling rate limits.
local function clock(at)
  if at == nil or at == '' then
    local t = rcall('TIME')
    return tonumber(t[1]), tonumber(t[2])
  end
  local now = integer_arg(at, 'time', 0, 999999999999, '"" or integer Unix seconds')
  return now, 0
end
