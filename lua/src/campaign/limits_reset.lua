#!lua
--[[
  campaign_limits_reset (admin): delete one voter's counters of every rule
  that counts per user (current windows and rolling state; the fields of
  the voter's hash <ns>rlu:USER, which goes when only its expiry field "@"
  is left, the voter's fields of the buckets <ns>rlb:RULE:WINDOW:N of the
  current windows (layout 3) and the campaign-window hashes' fields). Sent
  again it deletes nothing more. The read-only look at the same counters is
  campaign_limits.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  user  <user>
    ARGV[2]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[3]  channel  <name, "" = none>  "" none
    ARGV[4]  device  <name, "" = none>  "" none
    ARGV[5..]  pairs  <name/name, repeat 0..50>  board, option pairs (at most
             50): for per-user rules that also count per option, the options
             whose counters go

  Writes: HDEL of the voter's fields in <ns>rlu:USER (DEL when only "@" is
    left), in <ns>rlb:RULE:WINDOW:N and in <ns>rl:RULE:campaign; DEL of <ns>rl:RULE:WINDOW:SUBJECT and
    <ns>rl:RULE:rolling:SUBJECT.

  Output: the number of counters deleted

  Keys: <ns>rlu:USER, <ns>rlb:RULE:WINDOW:N, <ns>rl:RULE:WINDOW:SUBJECT,
    <ns>rl:RULE:rolling:SUBJECT, <ns>rl:RULE:campaign

  Reply: integer
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/limit_voter"

local function main()
  local checks = voter_checks('campaign_limits_reset', function(rule)
    return counts_by(rule, 'user')
  end)
  -- a hash of the wrong type is refused (WRONGTYPE) before the first delete
  -- (a check's slots: lib/limits, limit_plan)
  for _, check in ipairs(checks) do
    if check[3] then rcall('HEXISTS', check[2], check[3]) end
  end
  if checks.legacy_key then rcall('HEXISTS', checks.legacy_key, '@') end
  local deleted, voter = 0, nil
  for _, check in ipairs(checks) do
    local key, field, legacy = check[2], check[3], check[10]
    if legacy then
      -- layout 3 upgraded from 2: the count this window had before the
      -- upgrade, in the voter's hash, goes with the bucket's
      local gone = rcall('HDEL', checks.legacy_key, legacy)
      if field and rcall('HEXISTS', key, field) == 0 then deleted = deleted + gone end
      voter = checks.legacy_key
    end
    if field then
      deleted = deleted + rcall('HDEL', key, field)
      if check[8] then voter = key end -- counted in the voter's hash
    else
      deleted = deleted + rcall('DEL', key)
    end
  end
  -- a voter's hash left with its expiry field only goes
  if voter and rcall('HLEN', voter) == 1 and rcall('HEXISTS', voter, '@') == 1 then rcall('DEL', voter) end
  return deleted
end

--- @include "lib/epilogue"
