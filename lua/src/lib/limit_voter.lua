--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/pair_args"
--- @include "lib/clock"
--- @include "lib/offset"
--- @include "lib/limits"
--- @include "lib/voter"
-- limit_voter: what campaign_limits (the peek, read-only) and
-- campaign_limits_reset (the admin reset, a writer) share: their arguments
-- (KEYS[1] the campaign root; ARGV user, time, channel, device, then up to
-- 50 board, option pairs), checked in this order, and the counters of one
-- voter they look at. Needs campaign_key (lib/campaign), pair_argc
-- (lib/pair_args), clock (lib/clock), campaign_offset (lib/offset),
-- lib/limits (limit_plan, counts_by) and check_voter (lib/voter).

-- The checks (lib/limits' limit_plan, spending 0) of the voter the
-- arguments name, for the rules `wanted(rule, with_pairs)` keeps
-- (`with_pairs`: the call gave board, option pairs), planned at the time
-- lib/clock gives (the second and microsecond limit_evaluate counts from,
-- as the vote's).
local function voter_checks(op, wanted)
  local root, ns, layout = campaign_key(op)
  pair_argc(op, 4, 0, 50, 'user, time, channel, device, then board, option pairs')
  local user, channel, device = ARGV[1], ARGV[3], ARGV[4]
  check_voter(user, channel, device)
  local now, usec = clock(ARGV[2])
  local offset = campaign_offset(root)
  local c = rcall('HMGET', root, 'limits', 'end', 'rlu_until', 'limits_checked')
  local rules = limit_rules(root, c[1] or '[]', c[4])
  local end_at = c[2] and stored_int(c[2], 0, 253402300799, root, 'end') or nil
  -- layout 3 upgraded from 2: the voters' hashes' fixed counters still
  -- count (campaign_vote: until rlu_until, always on the explicit clock)
  local legacy = c[3] and (now < stored_int(c[3], 0, 253402300799, root, 'rlu_until') or ARGV[2] ~= '')
  local pairs_ = {}
  for i = 5, #ARGV, 2 do
    check_name(ARGV[i])
    check_name(ARGV[i + 1])
    pairs_[#pairs_ + 1] = { board = ARGV[i], option = ARGV[i + 1] }
  end
  local kept = {}
  for _, rule in ipairs(rules) do
    if wanted(rule, #pairs_ > 0) then kept[#kept + 1] = rule end
  end
  local subjects = #pairs_ > 0 and pairs_ or { { board = '', option = '' } }
  local ctx = { user = user, channel = channel, device = device, legacy = legacy, layout = layout }
  return limit_plan(ns, kept, ctx, subjects, 0, now, usec, offset, end_at)
end
