#!lua
--[[
  campaign_vote: user U votes for option O on board B, and in the same call
  for any number of further (board, option) pairs of the campaign (the
  seed's batch vote). All or nothing: one bad pair refuses the whole call.

  For each pair and each period the board keeps (from the server's clock in
  the campaign's UTC offset): +1 on the REAL board, +weight on the SHOWN
  board, +weight x carry on the NEXT period's shown board; then PFADD U to
  the option's and the campaign's participant HyperLogLogs (counters only:
  their replies are never used as a duplicate check).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  user  <user>  1..256 bytes, no control characters
    ARGV[2]  time  <time, "" = server clock>  "" for the server's TIME; integer
             Unix seconds only on the test/import path (the driver's
             Campaign::at), at most 9999-12-31T23:59:59 in the campaign's UTC
             offset (later ones have no period names: REDVOTE_INVALID_NUMBER);
             a time in a period whose boards are past their retention by the
             server's clock is refused (REDVOTE_INVALID_PERIOD), as by
             campaign_import
    ARGV[3]  channel  <name, "" = none>  traffic source for rate limits (""
             none), a name
    ARGV[4]  device  <name, "" = none>  device type for rate limits ("" none),
             e.g. pc, mobile
    ARGV[5]  cost  <integer 1..1000, "" = 1>  what the vote spends of each rate
             limit, 1..1000 ("" = 1)
    ARGV[6]  id  <vote_id, "" = none>  "" none; else the vote id, 1..128 bytes
             without control characters: the call's idempotency key (see
             Exactly once)
    ARGV[7..]  pairs  <name/name, repeat 1..50>  board, option, board, option,
             ...: 1..50 pairs

  Keys written (P = a period name such as day:2026-03-17, or total):
    <ns>b:B:real:P, <ns>b:B:shown:P   zsets, member O (EXPIREAT end of P +
                                      the board's retention for P, if any);
                                      real: ZINCRBY, shown: ZADD of the exact
                                      decimal
    <ns>f:B:real:P, <ns>f:B:shown:P   zsets, boards with ties "first" only:
                                      O -> the sequence number of the vote that
                                      brought O to its current score (same TTL)
    <ns>o:B:KIND:P, <ns>d:B:KIND:P    zsets, boards with ties "first" / "dense"
                                      in effect or pending (a switch not yet
                                      reindexed): the order kept for O(log N)
                                      ranks (see lua/src/lib/order.lua; same TTL)
    <ns>periods:B                     zset: every board written, as "real:P" /
                                      "shown:P" -> its expiry (0: kept forever);
                                      a board gets its EXPIREAT when first seen,
                                      and whenever the vote makes it anew
                                      (listed, but gone: expired, evicted or
                                      deleted; EXPIREAT NX)
    <ns>seq                           the vote sequence counter ("first" ties)
    <ns>hll:B:O, <ns>hll              participant HyperLogLogs
    <ns>vid:ID                        string: the applied vote with id ID, its
                                      arguments, reply and what it added
                                      (lib/void) as JSON (EX the campaign's
                                      vote_id_ttl, default 86400)
    <ns>st:B:P, <ns>sp:P, <ns>sn:P    statistics of the hour and day buckets P
                                      (hour:2026-03-17T12, day:2026-03-17):
                                      the board's counters (hash), the
                                      campaign's participants (HyperLogLog)
                                      and their count (lib/stats)
    <ns>log                           stream, campaigns with vote_log N > 0
                                      only: XADD MAXLEN ~ N of u (user), c
                                      (channel), d (device), i (vote id), a
                                      (what it added, lib/void)
    <ns>rlu:USER                      hash: the user's rate-limit counters of
                                      rules that count by user (layout 3:
                                      rolling rules only), field RULE or
                                      RULE|SUBJECT, value END:COUNT:WINDOW or a
                                      rolling TAT, "@" its expiry (the latest
                                      END; see lua/src/lib/limits.lua)
    <ns>rlb:RULE:WINDOW:N             hash, layout 3: a bucket of the counts of
                                      a fixed-window rule that counts by user,
                                      field the subject (the user's included),
                                      value the count (EXPIREAT the window's
                                      end)
    <ns>rl:RULE:WINDOW:SUBJECT         other rate-limit counters (expire with
                                      their window)
    <ns>rl:RULE:campaign              hash: campaign-window counters, field
                                      SUBJECT (expires a week after the
                                      campaign's end)

  Precision: shown scores are kept as exact decimals with the board's
  `decimals` (a carried share is rounded half up to them), so 0.1 + 0.2 is
  stored as 0.3. The exact range is 2^53 units (of 10^-decimals) for
  decimals 0 and 2^51 units otherwise; a write beyond it is refused.

  Rate limits: the campaign's rules (see campaign_configure.lua and
  lua/src/lib/limits.lua) and deny lists are checked after every argument and
  before the first write; a refusal spends nothing and answers
  REDVOTE_RATE_LIMITED {"rule": ..., "retry_after": seconds (-1: not in this
  campaign), "remaining": {rule: votes left, ...}} or REDVOTE_DENIED. Batch
  pairs count against the limits pair by pair, all or nothing.

  Exactly once: a vote with an id is recorded with its reply, in the same
  call as its writes, for the campaign's vote_id_ttl seconds (server clock).
  A call with an id already recorded writes nothing and answers the recorded
  reply, each entry marked "replay"; with the same id but other arguments it
  is refused (REDVOTE_VOTE_ID_REUSED). A refused vote records nothing: its
  retry is judged afresh.

  Bounded work: a batch does at most 600 units of work (lib/board's
  CALL_WORK: 8 a pair, for each board entry it writes 2 plus its side
  keys', 4 a rate-limit rule a pair); a batch over it is refused
  (REDVOTE_USAGE, naming how many pairs of these boards fit a call) before
  anything is written. One pair always fits. On a board keeping one
  period, 50 pairs fit with competition or name ties, 30 with dense ties,
  25 with first ties; on one keeping five periods with carry, 16 with
  competition ties, 5 with first ties.

  Buffered campaigns (settings "mode": "buffered", docs/hot-campaigns.md):
  the vote is accepted exactly as above (every check, the rate limits
  spent, the vote id recorded, the vote log), then appended to its
  options' buffers <ns>buf:B:O (lib/fold) instead of written to the
  boards; the call folds (lib/fold) when the oldest buffered vote is
  fold_ms old or 1000 pairs wait. A buffered vote's record keeps its
  folded, not its reply, and what plans its entries again, not the
  entries (lib/vote_id, lib/vote_added).

  Output: one entry per pair, in order: { board, option, { P, shown score
    (string, fixed decimals), ... } } for every period the board keeps; on a
    replay each entry has a fourth element, "replay". On a buffered campaign
    (docs/hot-campaigns.md) the vote is not on the boards yet: each entry is
    { board, option, {}, "" or "replay", folded }, folded the Unix ms (a
    string) before which every accepted vote is on the boards.

  Keys: <ns>board:B, <ns>weights:B, <ns>deny:users, <ns>deny:channels,
    <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P, <ns>o:B:KIND:P,
    <ns>d:B:KIND:P, <ns>seq, <ns>hll:B:O, <ns>hll, <ns>vid:ID, <ns>st:B:P,
    <ns>sp:P, <ns>sn:P, <ns>log, <ns>rlu:USER, <ns>rlb:RULE:WINDOW:N,
    <ns>rl:RULE:WINDOW:SUBJECT, <ns>rl:RULE:rolling:SUBJECT,
    <ns>rl:RULE:campaign, <ns>buf:B:O, <ns>bufs, <ns>campaign

  Reply: list({board: string, option: string, scores: pairs(string, string),
    replay: string|nil, folded: string|nil})
  Idempotent: with vote id

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_VOTE_ID,
    REDVOTE_VOTE_ID_REUSED, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_NAME, REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION, REDVOTE_CAMPAIGN_CLOSED,
    REDVOTE_OUT_OF_RANGE,
    REDVOTE_INVALID_CONFIG, REDVOTE_RATE_LIMITED, REDVOTE_DENIED,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/unknown_campaign"
--- @include "lib/clock"
--- @include "lib/voter"
--- @include "lib/pair_args"
--- @include "lib/last_second"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/periods"
--- @include "lib/fold_settings"
--- @include "lib/exact"
--- @include "lib/intake"

-- The code that writes boards (lib/apply, lib/fold), made only by a call
-- that needs it: every function a
-- script defines at its top is a closure made on each call, and a
-- buffered vote's intake needs none of these.
local function writers()
--- @include "lib/stats"
--- @include "lib/apply"
--- @include "lib/fold"
--- @include "lib/vote_added"
  return { apply_plan = apply_plan, apply_write = apply_write, fold_buffer = fold_buffer }
end

-- The vote is the campaign's hottest call, and each function a script
-- defines is a closure made on every call (docs/benchmark.md, Hot
-- campaigns: where the cost is). So the vote's
-- phases are written out in main, in order, rather than as functions,
-- calling the shared helper for each step other scripts take (lib/campaign,
-- lib/clock, lib/voter, lib/name_arg, lib/pair_args, lib/last_second,
-- lib/board's expire_at); and the libs of the rarer paths are included
-- inside the branch that needs them, so that only that branch makes their
-- closures: lib/vote_id with a vote id, lib/limits and lib/limit_spend
-- when the campaign has rules, lib/order with a board keeping dense or
-- first side keys, lib/board_write when a period board is new. (An
-- included file is emitted once a script: each of those is included in
-- one branch only.) tests/suite/campaign/vote_diff.rs and limits::diff
-- hold it to the vote before.
local function main()
  -- Phase 1, the arguments: the campaign's key, the argument count, the
  -- voter (user, channel, device), the cost, the clock and the vote id (all
  -- checked: REDVOTE_USAGE, INVALID_USER, INVALID_NAME, INVALID_NUMBER,
  -- INVALID_VOTE_ID); a vote id already recorded answers its recorded reply
  -- at once (nothing else read or written).
  -- The campaign root and its hash, with the settings the vote reads
  -- (lib/campaign: the layout checked).
  local root, ns, layout, c = campaign_key('campaign_vote', 'offset', 'start', 'end', 'limits', 'denying', 'updated',
    'vote_id_ttl', 'vote_log', 'stats_keep', 'rlu_until', 'limits_checked', 'mode', 'fold_ms', 'fold_due', 'folded', 'buffered')
  pair_argc('campaign_vote', 6, 1, 50, 'user, time, channel, device, cost, vote id, then board, option pairs',
    'at most 50 (board, option) pairs a call')
  local user, at, channel, device, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[6]
  check_voter(user, channel, device)
  -- the cost ("" is 1) and the clock ("": the server's; lib/clock)
  local cost = ARGV[5] == '' and 1 or integer_arg(ARGV[5], 'cost', 1, 1000)
  local now, usec = clock(at)
  -- on an explicit clock, the server's too: a period whose boards are past
  -- their retention by it is refused (lib/retention), as by the import
  local server_now, refuse_expired_
  local server_ms = now * 1000 + math.floor(usec / 1000)
  if at ~= '' then
--- @include "lib/retention"
    local t = rcall('TIME')
    server_now, refuse_expired_ = tonumber(t[1]), refuse_expired
    server_ms = server_now * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  -- the vote id (lib/vote_id); request: the call's record, to write
  local request, record_vote
  if id ~= '' then
--- @include "lib/vote_id"
    local record
    record, request = vote_id_lookup(ns, id)
    if record then return record end
    record_vote = vote_id_record
  end
  -- periods_at: each period kind's current period (name, end) and next
  -- one, computed once a call (by the rate limits, the plan or the
  -- statistics, whichever needs it first)
  local periods_at = {}

  -- Phase 2a, the campaign's stored settings (UNKNOWN_CAMPAIGN; parsed
  -- strictly by lib/stored: INVALID_CONFIG naming the key and field) and
  -- its window (CAMPAIGN_CLOSED).
  if not c[6] then unknown_campaign(root) end
  local offset = c[1] and stored_int(c[1], -50400, 50400, root, 'offset') or 0
  if offset % 60 ~= 0 then fail('INVALID_CONFIG', root .. ' offset is corrupt: "' .. c[1]:sub(1, 40) .. '"') end
  check_last_second(now, offset, at)
  local start_at = c[2] and stored_int(c[2], 0, LAST_SECOND, root, 'start')
  local end_at = c[3] and stored_int(c[3], 0, LAST_SECOND, root, 'end') or nil
  -- The rate limits (lib/limits, lib/limit_spend), made here only when the
  -- campaign has rules: the rules (false: none), and the functions the
  -- later phases call (plan and evaluate in phase 3, spend in phase 5).
  local rules, limit_plan_, limit_evaluate_, limit_spend_ = c[4] and c[4] ~= '[]'
  if rules then
--- @include "lib/limits"
--- @include "lib/limit_spend"
    rules = limit_rules(root, c[4], c[11])
    limit_plan_, limit_evaluate_, limit_spend_ = limit_plan, limit_evaluate, limit_spend
  end
  -- layout 3 upgraded from 2: the voters' hashes' fixed counters of the
  -- windows in flight still count (lib/limits, campaign_upgrade); on the
  -- explicit clock, whose windows may lie anywhere, always
  local legacy = c[10] and (now < stored_int(c[10], 0, LAST_SECOND, root, 'rlu_until') or at ~= '')
  local id_ttl = request and (c[7] and stored_int(c[7], 1, 31536000, root, 'vote_id_ttl') or 86400)
  local vote_log = c[8] and stored_int(c[8], 0, 1000000, root, 'vote_log') or 0
  local stats_keep = c[9] and stored_int(c[9], -1, 315360000, root, 'stats_keep')
  local buffered = c[12] == 'buffered'
  if start_at and now < start_at then fail('CAMPAIGN_CLOSED', 'the campaign starts at ' .. c[2]) end
  if end_at and now >= end_at then fail('CAMPAIGN_CLOSED', 'the campaign ended at ' .. c[3]) end

  -- Phase 2b, the pairs: every board's settings once (UNKNOWN_BOARD,
  -- INVALID_CONFIG), every option's weight (INVALID_NAME, UNKNOWN_OPTION).
  -- boards: board name -> settings; pairs_: { board, option, weight } in
  -- argument order; sided: a board keeps side keys (lib/order), first_ties:
  -- one has ties "first".
  local boards, pairs_, sided, first_ties = {}, {}, false, false
  for i = 7, #ARGV, 2 do
    local board, option = ARGV[i], ARGV[i + 1]
    check_name(option)
    local b = boards[board]
    if not b then
      b = board_settings(ns, board)
      boards[board] = b
      sided = sided or b.sides[1] ~= nil
      first_ties = first_ties or b.first
    end
    local weight = rcall('HGET', ns .. 'weights:' .. board, option)
    if not weight then fail('UNKNOWN_OPTION', 'board "' .. board .. '" has no option "' .. option .. '"') end
    weight = stored_int(weight, 1, 1000000, ns .. 'weights:' .. board, option)
    pairs_[#pairs_ + 1] = { board = board, option = option, weight = weight }
  end
  if #pairs_ > 1 then
    -- Bounded work (header): a batch's units, refused over CALL_WORK
    local work, nrules = 0, rules and #rules or 0
    for _, pair in ipairs(pairs_) do
      local b = boards[pair.board]
      local n = #b.periods
      -- real and shown of each period, and the carry into each next one
      local entries = 2 * n + (b.carry_millionths > 0 and n - (b.keeps.total and 1 or 0) or 0)
      work = work + 8 + entries * entry_work(b) + 4 * nrules
    end
    if work > CALL_WORK then
      fail('USAGE', 'campaign_vote: these ' .. #pairs_ .. ' pairs are ' .. work .. ' units of work, more than one call may do ('
        .. CALL_WORK .. '): send at most ' .. math.floor(CALL_WORK * #pairs_ / work) .. ' pairs of these boards a call')
    end
  end

  -- Phase 3, deny lists and rate limits (DENIED, RATE_LIMITED): before the
  -- first write, so a refused vote changes nothing and two concurrent votes
  -- cannot both take the last slot. checks: the limit checks to spend (nil
  -- without rules).
  if c[5] == '1' then
    if rcall('SISMEMBER', ns .. 'deny:users', user) == 1 then fail('DENIED', 'user "' .. user .. '" may not vote') end
    if channel ~= '' and rcall('SISMEMBER', ns .. 'deny:channels', channel) == 1 then
      fail('DENIED', 'channel "' .. channel .. '" may not vote')
    end
  end
  if vote_log > 0 then
    local t = rcall('TYPE', ns .. 'log').ok
    if t ~= 'none' and t ~= 'stream' then fail('INVALID_CONFIG', ns .. 'log is not a stream') end
  end
  local checks
  if rules then
    checks = limit_plan_(ns, rules, { user = user, channel = channel, device = device, legacy = legacy, layout = layout,
      periods_at = periods_at }, pairs_, cost, now, usec, offset, end_at)
    local refusal = limit_evaluate_(checks)
    if refusal then fail('RATE_LIMITED', cjson.encode(refusal)) end
  end

  local vote = { user = user, channel = channel, device = device, now = now, pairs = pairs_, periods_at = periods_at }
  local ctx = { ns = ns, boards = boards, offset = offset, stats_keep = stats_keep, sided = sided,
    first_ties = first_ties }
  if server_now then ctx.refuse = function(b, name, expiry) refuse_expired_(b, name, expiry, server_now) end end
  if buffered then
    return buffer_vote(root, ns, c, ctx, vote, { writers = writers, checks = checks, spend = limit_spend_, id = id,
      request = request,
      record = record_vote, id_ttl = id_ttl, vote_log = vote_log, server_ms = server_ms })
  end

  -- Phase 4, the writes planned (OUT_OF_RANGE) and every key they touch
  -- read and checked (lib/apply), before the first write.
  ctx.reply = true
  ctx.out_of_range = function(b, option, which, limit, scale)
    fail('OUT_OF_RANGE', 'option "' .. option .. '" of board "' .. b.name .. '" would leave the exact range (' .. which
      .. ': ' .. limit .. ' units of 10^-' .. scale .. ')')
  end
  local w = writers()
  local plan = w.apply_plan(ctx, { vote })

  -- Phase 5, validated: the writes start here (lib/apply), and the rate
  -- limits spent.
  w.apply_write(ctx, plan)
  if checks then limit_spend_(checks) end

  -- What the vote added (lib/void's object), for its vote-id record and
  -- the vote log.
  local info = (request or vote_log > 0) and vote_added(plan.order, pairs_, boards, vote, plan.buckets)
  if vote_log > 0 then info.l = log_vote(ns, vote_log, vote, id, info) end
  local reply = {}
  for n, pair in ipairs(pairs_) do
    local shown = vote.shown_at[n] -- period name, entry, ...: the entries' scores
    for i = 2, #shown, 2 do shown[i] = shown[i][11] end
    reply[n] = { pair.board, pair.option, shown }
  end
  if request then record_vote(ns, id, request, reply, id_ttl, info) end
  return reply
end

--- @include "lib/epilogue"
