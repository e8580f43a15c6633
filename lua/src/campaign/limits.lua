#!lua flags=no-writes
--[[
  campaign_limits: look at one voter's rate-limit counters, spending
  nothing: how many votes each rule leaves the voter now and when its
  window resets. Read-only (flagged no-writes: it runs on a replica, and a
  client that WAITs for replicas after writes does not wait for it). The
  admin reset of the same counters is campaign_limits_reset.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  user  <user>
    ARGV[2]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path
    ARGV[3]  channel  <name, "" = none>  "" none
    ARGV[4]  device  <name, "" = none>  "" none
    ARGV[5..]  pairs  <name/name, repeat 0..50>  board, option pairs (at most
             50): the options to look at for rules that count per option
             (without pairs those rules are left out)

  Output: { { rule, remaining, reset_in (seconds, -1: never) }, ... },
          one entry per counter, in rule order

  Cost: O(rules x pairs) counters, read in one MGET, one HMGET and one
    HGET per campaign-window or bucketed counter (at most 32 rules, 50
    pairs).

  Keys: <ns>rlu:USER, <ns>rlb:RULE:WINDOW:N, <ns>rl:RULE:WINDOW:SUBJECT,
    <ns>rl:RULE:rolling:SUBJECT, <ns>rl:RULE:campaign

  Reply: list({rule: string, remaining: integer, reset_in: integer})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/limit_voter"

local function main()
  -- every rule, but those that count per option only for the given pairs
  local checks = voter_checks('campaign_limits', function(rule, with_pairs)
    return with_pairs or not counts_by(rule, 'option')
  end)
  limit_evaluate(checks)
  local reply = {}
  for _, check in ipairs(checks) do
    -- the check's rule, left and reset_in (lib/limits, limit_plan)
    reply[#reply + 1] = { check[1].name, check[13], check[14] }
  end
  return reply
end

--- @include "lib/epilogue"
