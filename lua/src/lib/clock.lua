--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/args"
-- clock: the `time` argument of campaign scripts. Needs rcall (lib/prologue)
-- and integer_arg (lib/args).

-- "" (or nil) for the server's clock, or explicit integer Unix seconds
-- (test path; REDVOTE_INVALID_NUMBER otherwise). Returns the second, then
-- the same with the server's microseconds (rolling rate limits).
local function clock(at)
  if at == nil or at == '' then
    local t = rcall('TIME')
    local now = tonumber(t[1])
    return now, now + tonumber(t[2]) / 1000000
  end
  local now = integer_arg(at, 'time', 0, 999999999999, '"" or integer Unix seconds')
  return now, now
end
