--- @include "lib/prologue"
-- rankings: the extra rankings a site may keep beside score:, hot: and
-- best:, and writing an article's entries in them (post, vote, rerank).
-- Both are functions of the article's counts and time only, so they change
-- only when a vote does. Two functions, the formulas inline: every function
-- a script defines is a closure made on every call, rankings on or off.

-- Read the rankings the site keeps (`rankings`: the config value), so that
-- one of the wrong type is refused (WRONGTYPE) before a caller's first write.
local function check_rankings(prefix, rankings)
  if rankings:find('hot', 1, true) then rcall('ZCARD', prefix .. 'hot:') end
  if rankings:find('best', 1, true) then rcall('ZCARD', prefix .. 'best:') end
end

-- Write an article's entries in the rankings the site keeps (`rankings`:
-- the config value, e.g. "hot,best"); up, down and time are numbers.
local function write_rankings(prefix, rankings, member, up, down, time)
  if rankings:find('hot', 1, true) then
    -- Reddit's "hot": sign(s) * log10(max(|s|, 1)) + (time - 1134028003) / 45000
    local s = up - down
    local sign = (s > 0 and 1) or (s < 0 and -1) or 0
    local hot = sign * math.log10(math.max(math.abs(s), 1)) + (time - 1134028003) / 45000
    rcall('ZADD', prefix .. 'hot:', string.format('%.17g', hot), member)
  end
  if rankings:find('best', 1, true) then
    -- "best": lower bound of the Wilson score interval of up / (up + down), z = 1.281551565545
    local n, best = up + down, 0
    if n > 0 then
      local z = 1.281551565545
      local p = up / n
      best = (p + z * z / (2 * n) - z * math.sqrt((p * (1 - p) + z * z / (4 * n)) / n)) / (1 + z * z / n)
    end
    rcall('ZADD', prefix .. 'best:', string.format('%.17g', best), member)
  end
end
