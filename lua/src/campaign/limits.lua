#!lua
--[[
  campaign_limits: look at or reset one voter's rate-limit counters.
  "peek" spends nothing: how many votes each rule leaves this voter now and
  when its window resets. "reset" (admin) deletes the voter's counters of
  every rule that counts per user (current windows and rolling state; the
  fields of the voter's hash <ns>rlu:USER, which goes when only its expiry
  field "@" is left, and the campaign-window hashes' fields).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  mode     "peek" | "reset"
    ARGV[2]  user
    ARGV[3]  time     "" for the server's clock; Unix seconds on the test path
    ARGV[4]  channel  "" none
    ARGV[5]  device   "" none
    ARGV[6..] board, option pairs: the options to look at for rules that
             count per option (without pairs those rules are left out)

  Output: peek: { { rule, remaining, reset_in (seconds, -1: never) }, ... },
          one entry per counter, in rule order
          reset: the number of counters deleted

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/pair_args"
--- @include "lib/clock"
--- @include "lib/offset"
--- @include "lib/limits"

-- Whether a rule counts by dimension `dim`.
local function counts_by(rule, dim)
  for _, d in ipairs(rule.by) do
    if d == dim then return true end
  end
  return false
end

local function main()
  local root, ns = campaign_key('campaign_limits')
  pair_argc('campaign_limits', 5, 0, 50, 'mode, user, time, channel, device, then board, option pairs')
  local mode, user, channel, device = ARGV[1], ARGV[2], ARGV[4], ARGV[5]
  if mode ~= 'peek' and mode ~= 'reset' then fail('USAGE', 'mode must be peek or reset, got "' .. mode:sub(1, 40) .. '"') end
  check_voter(user, channel, device)
  local now = clock(ARGV[3])
  local offset = campaign_offset(root)
  local c = rcall('HMGET', root, 'limits', 'end')
  local rules = limit_rules(root, c[1] or '[]')
  local end_at = c[2] and stored_int(c[2], 0, 253402300799, root, 'end') or nil
  local pairs_ = {}
  for i = 6, #ARGV, 2 do
    check_name(ARGV[i])
    check_name(ARGV[i + 1])
    pairs_[#pairs_ + 1] = { board = ARGV[i], option = ARGV[i + 1] }
  end
  local wanted = {}
  for _, rule in ipairs(rules) do
    if (mode == 'peek' and (#pairs_ > 0 or not counts_by(rule, 'option'))) or (mode == 'reset' and counts_by(rule, 'user')) then
      wanted[#wanted + 1] = rule
    end
  end
  local subjects = #pairs_ > 0 and pairs_ or { { board = '', option = '' } }
  local checks = limit_plan(ns, wanted, { user = user, channel = channel, device = device }, subjects, 0, now, offset, end_at)
  if mode == 'reset' then
    -- a hash of the wrong type is refused (WRONGTYPE) before the first delete
    for _, check in ipairs(checks) do
      if check.field then rcall('HEXISTS', check.key, check.field) end
    end
    local deleted, voter = 0, nil
    for _, check in ipairs(checks) do
      if check.field then
        deleted = deleted + rcall('HDEL', check.key, check.field)
        if check.voter then voter = check.key end
      else
        deleted = deleted + rcall('DEL', check.key)
      end
    end
    -- a voter's hash left with its expiry field only goes
    if voter and rcall('HLEN', voter) == 1 then rcall('DEL', voter) end
    return deleted
  end
  limit_evaluate(checks, now, 0)
  local reply = {}
  for _, check in ipairs(checks) do
    reply[#reply + 1] = { check.rule.name, check.left, check.reset_in }
  end
  return reply
end

--- @include "lib/epilogue"
