--- @include "lib/prologue"
-- args: the checks every script makes of its KEYS and ARGV before anything
-- else. Each refuses with REDVOTE_USAGE / REDVOTE_INVALID_* and a detail
-- naming the operation or the offending value (cut to 80 bytes).

-- The one key a script takes: KEYS[1] must end with `suffix` ('article:' for
-- the site root, 'campaign' for a campaign root); `role` describes it in the
-- refusal. Returns the key and the prefix before the suffix, from which the
-- script derives every other key (so they share the key's hash tag).
local function one_key(op, suffix, role)
  local key = KEYS[1]
  if #KEYS ~= 1 or key:sub(-#suffix) ~= suffix then
    fail('USAGE', op .. ' takes 1 key, the ' .. role)
  end
  return key, key:sub(1, -#suffix - 1)
end

-- ARGV must hold lo..hi arguments; `usage` lists them ("user, article [, vote]").
local function argc(op, lo, hi, usage)
  if #ARGV < lo or #ARGV > hi then fail('USAGE', op .. ' takes ' .. usage) end
end

-- An integer argument in lo..hi, as decimal digits only (no sign, no
-- exponent, no leading zero when lo >= 1), returned as a number. `what`
-- replaces "an integer in lo..hi" in the refusal when given.
local function integer_arg(s, name, lo, hi, what)
  local digits = lo >= 1 and '^[1-9]%d*$' or '^%d+$'
  if not s:find(digits) or #s > #string.format('%d', hi) or tonumber(s) < lo or tonumber(s) > hi then
    what = what or ('an integer in ' .. lo .. '..' .. hi)
    fail('INVALID_NUMBER', name .. ' must be ' .. what .. ', got "' .. s:sub(1, 80) .. '"')
  end
  return tonumber(s)
end

-- A user id: 1..256 bytes without control characters (an opaque string).
local function check_user(user)
  if #user == 0 or #user > 256 or user:find('%c') then
    fail('INVALID_USER', 'user must be 1..256 bytes without control characters')
  end
end
