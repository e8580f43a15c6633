--- @include "lib/prologue"
--- @include "lib/names"
--- @include "lib/stored"
-- limit_rules_check: the checks of stored rate-limit rules that limit_rules
-- (lib/limits) runs only when the rules are not stamped by
-- campaign_configure (`limits_checked`), included inside it so that a vote
-- whose rules are stamped does not make its closure. Needs fail (lib/prologue),
-- name_ok (lib/names) and stored_int (lib/stored).

-- The rules, from the campaign's `limits` field (JSON), checked to be
-- exactly what campaign_configure writes: a list of at most 32 rules, each
-- { name, by (1..4 distinct dimensions), extra (channel -> 0..10^9)? } and
-- either { window, limit 1..10^9 } or { rolling = true, limit 1..10^6,
-- per 1..315360000, burst 1..10^6 }; REDVOTE_INVALID_CONFIG naming the key
-- and field otherwise.
local function limit_rules_checked(root, json)
  local ok, rules = pcall(cjson.decode, json)
  local bad = not ok or type(rules) ~= 'table' or not json:find('^%s*%[') or #rules > 32
  local n = 0
  for _ in pairs(bad and {} or rules) do n = n + 1 end
  bad = bad or n ~= #rules
  for i = 1, bad and 0 or #rules do
    local r = rules[i]
    local what = 'limits rule ' .. i
    -- "@" is the voter hash's expiry field: no rule has that name
    bad = type(r) ~= 'table' or not name_ok(r.name) or r.name == '@' or type(r.by) ~= 'table' or #r.by == 0 or #r.by > 4
      or (r.extra ~= nil and (type(r.extra) ~= 'table' or (#r.extra > 0)))
    if not bad then
      local seen = {}
      for j, d in pairs(r.by) do
        if type(j) ~= 'number' or seen[d] or (d ~= 'user' and d ~= 'option' and d ~= 'channel' and d ~= 'device') then bad = true end
        seen[d] = true
      end
      for channel, x in pairs(r.extra or {}) do
        if not name_ok(channel) then bad = true else stored_int(x, 0, 1000000000, root, what .. ' extra') end
      end
      if r.rolling == true then
        stored_int(r.limit, 1, 1000000, root, what .. ' limit')
        stored_int(r.per, 1, 315360000, root, what .. ' per')
        stored_int(r.burst, 1, 1000000, root, what .. ' burst')
      elseif r.rolling ~= nil or (r.window ~= 'second' and r.window ~= 'minute' and r.window ~= 'hour' and r.window ~= 'day'
          and r.window ~= 'week' and r.window ~= 'month' and r.window ~= 'campaign') then
        bad = true
      else
        stored_int(r.limit, 1, 1000000000, root, what .. ' limit')
      end
    end
    if bad then fail('INVALID_CONFIG', root .. ' limits is corrupt: ' .. what .. ' is malformed') end
  end
  if bad then fail('INVALID_CONFIG', root .. ' limits is corrupt: not a list of rules') end
  return rules
end
