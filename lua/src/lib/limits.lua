--- @include "lib/prologue"
--- @include "lib/names"
--- @include "lib/periods"
--- @include "lib/stored"
-- limits: rate limits, checked inside the vote before its first write
-- (campaign_vote) or looked at without spending (campaign_limits): the
-- voter's arguments, the rules, and what a call would spend of each
-- counter (lib/limit_spend spends it). Needs rcall, fail (lib/prologue),
-- name_ok (lib/names), stored_int (lib/stored) and period (lib/periods).
--
-- A rule (stored as JSON in the campaign hash, field `limits`, validated by
-- campaign_configure) counts votes per combination of dimensions `by`
-- (user, option, channel, device) over one window:
--   fixed windows  second, minute, hour, day, week, month: calendar-aligned
--                  in the campaign's UTC offset; a counter per window that
--                  expires when the window ends (a burst at a window edge can
--                  reach twice the limit over a short span);
--   campaign       one counter for the whole campaign (expires at its end);
--                  a refusal by it, or by a window that ends after the
--                  campaign does, has retry_after -1 (not within the campaign);
--   rolling        GCRA (as redis-cell and go-redis/redis_rate): `limit`
--                  votes per `per` seconds spaced evenly, `burst` at once;
--                  no edge bursts; one key per subject holding the
--                  theoretical arrival time (TAT), exactly: the emission
--                  interval per * 10^6 / limit microseconds is kept as the
--                  rational iq + ir / limit (integer microseconds and a
--                  remainder), so burst and remaining are exact for every
--                  limit and per (7 per 60 s: 8571428 + 4/7 us). Stored as
--                  "SECONDS.MICROSECONDS", followed by "+R/L" when the TAT
--                  lies R/L of a microsecond later (L: the rule's limit),
--                  e.g. "2215484417.142857+1/7"; the key expires one second
--                  after the TAT has passed.
-- Where the counters live (docs/rate-limits.md#counters; one key with an
-- expiry costs ~120-150 B in Redis 7, so no key per user can get under
-- the 100 B a rate-limited user docs/benchmark.md measures):
--   buckets        campaign layout 3, a fixed-window rule that counts by
--                  user: <ns>rlb:RULE:WINDOW:N (limit_plan),
--                  N the user's bucket, field the subject (the user's
--                  included), value the count; the bucket EXPIREATs its
--                  window's end, so every window keeps its own counts until
--                  it ends (a vote dated in an earlier window counts there).
--                  One HGET a counter, one HINCRBY (and an EXPIREAT for a
--                  new field) to spend. A campaign upgraded from layout 2
--                  (root field rlu_until) also counts the voter's former
--                  field of the same window in <ns>rlu:USER (a check's legacy, limit_plan).
--   per voter      a rule that counts by user (layouts 1 and 2: fixed or
--                  rolling; layout 3: rolling only), not the campaign
--                  window: one hash per user and campaign,
--                  <ns>rlu:USER, field RULE (RULE|REST when the rule counts
--                  by more than the user: REST is the subject of its other
--                  dimensions), value "END:COUNT:WINDOW" (END: the first
--                  second after the counter's window, WINDOW its kind:
--                  a value of another kind, after the rule changed under
--                  its name, counts as 0) or a rolling rule's TAT; the
--                  field "@" holds the hash's expiry, the latest END (or
--                  TAT expiry) written, raised only. A field of an earlier
--                  window counts as 0 and is overwritten; one vote reads
--                  every field in one HMGET and writes them in one HSET.
--                  A vote dated in a window before the one a field holds
--                  (explicit clock, or a server clock that went back) is
--                  refused with retry_after -1: that count is gone, and
--                  the limit fails closed.
--   campaign       one hash per rule, <ns>rl:RULE:campaign, field SUBJECT;
--                  it expires with the campaign (configure moves it).
--   other          (option, channel, device rules) a string key per rule,
--                  window and subject, <ns>rl:RULE:WINDOW:SUBJECT (rolling:
--                  <ns>rl:RULE:rolling:SUBJECT), expiring with the window.
-- `extra` maps a channel to extra allowance (a partner channel: +5).
-- A vote passes only if every rule passes; nothing is spent unless all do.

-- The rules, as limit_rules_checked returns them. Rules stamped by
-- campaign_configure are decoded and trusted as they are: `checked`, the
-- root's `limits_checked`, is the copy configure wrote of the rules it
-- validated, and comparing it costs nothing (Lua strings are interned:
-- two equal texts are one object), where validating the rules, or a
-- SHA1 of them, would cost every vote. Rules without
-- the stamp, or that differ from it (changed by hand, or configured by an
-- earlier redvote), go through limit_rules_checked, which fails with the
-- error text (lib/limit_rules_check, included here: each function is a
-- closure made on every call, and a vote with rules stamped needs none).
-- The tables are cjson's as they are: where a rule counts (limit_plan) is
-- not written into them, since a field added to a decoded table rehashes it
-- (about 2k a rule).
local function limit_rules(root, json, checked)
  local ok, rules
  if json == checked then ok, rules = pcall(cjson.decode, json) end
  if not (ok and type(rules) == 'table') then
--- @include "lib/limit_rules_check"
    return limit_rules_checked(root, json)
  end
  return rules
end

-- Buckets a fixed-window rule that counts by user spreads its voters over
-- on campaign layout 3 (<ns>rlb:RULE:WINDOW:N, N in 0..LIMIT_BUCKETS-1): a
-- bucket stays a listpack (Redis' default hash-max-listpack-entries, 512)
-- while a window sees at most 512 x 256 = 131,072 voters of a rule; beyond
-- that the buckets turn into hash tables (more memory a voter, counts still
-- exact). Fewer buckets cost less for a small campaign (each bucket key is
-- ~130 B), more keep a large window compact: docs/rate-limits.md#counters.
-- crates/redvote-check knows this number (LIMIT_BUCKETS there).
local LIMIT_BUCKETS = 256

-- The bucket of a user (limit_plan, written out there: one closure less a
-- call): the first 32 bits of the SHA1 of its id, modulo LIMIT_BUCKETS
-- (stable across versions and cheaper than a hash loop in Lua for ids
-- longer than a few bytes), as the decimal text keys name it. 256 divides
-- 2^32: the bucket is the 4th byte, hex digits 7 and 8.

-- Whether a rule counts by dimension `dim`.
local function counts_by(rule, dim)
  local by = rule.by
  for j = 1, #by do
    if by[j] == dim then return true end
  end
  return false
end

-- Every counter this call touches, with what it would spend: a list of
-- checks (rolling rules: the key holds the theoretical arrival time). A
-- check is an array, not a table of named fields (made at once, where
-- named fields added one by one rehash the table as it grows),
--   [1] rule   [2] key   [3] field (false: a string counter)
--   [4] need (what the call spends)   [5] allowance (the rule's limit, or
--       burst, and the channel's extra)   [6] finish (the first second
--       after the window; false: none)   [7] never (the window outlives
--       the campaign: no reset within it)   [8] voter   [9] bucket (where
--       it counts, below)   [10] legacy (the field in the voter's hash
--       before layout 3, or false)
--   and what limit_evaluate finds (made here, so that no slot is added):
--   [11] existed   [12] used   [13] left   [14] reset_in   [15] behind
--   [16] new TAT and [17] its expiry (rolling rules).
-- Where a rule counts (see above) follows from the rule and the campaign's
-- data layout `ctx.layout` (lib/layout): in the voter's hash (voter) a rule
-- that counts by user, not over the campaign window, but for a fixed-window
-- one on layout 3, which counts in the buckets (bucket). Whom a rule counts a vote
-- for one option against (its subject): the values of its dimensions `by`,
-- each prefixed by its length, joined by "|" (the user left out of a rule
-- counted in the voter's hash); each value's part is formatted once a
-- call, a rule's window and key (but for a string counter's) once a rule.
local function limit_plan(ns, rules, ctx, pairs, cost, now, usec, offset, campaign_end)
  local format = string.format
  -- the time every rule is evaluated at (limit_evaluate), one for the plan
  -- and the evaluation: the vote and the peek agree to the microsecond
  local checks, n = { now = now, usec = usec }, 0
  local user, channel, device, legacy, bucketed = ctx.user, ctx.channel, ctx.device, ctx.legacy, ctx.layout >= 3
  local npairs = #pairs
  -- a batch meets a counter again for another pair: checks joined by key
  -- and field (one pair: a scan, see below)
  local by_key = npairs > 1 and {} or nil
  local user_part, channel_part, device_part, option_part, option_parts
  local voter_key, bucket, last_window, last_id, last_finish
  for ri = 1, #rules do
    local rule = rules[ri]
    local rolling, name, by, window = rule.rolling, rule.name, rule.by, rule.window
    local voter, bucket_rule = window ~= 'campaign' and counts_by(rule, 'user'), false
    if voter and bucketed and not rolling then voter, bucket_rule = false, true end
    local extra = rule.extra
    local allowance = (rolling and rule.burst or rule.limit) + (extra and extra[channel] or 0)
    local id, finish = 'rolling', nil
    if not rolling then
      if window ~= last_window then
        -- The window holding `now`: id and end (first second after; nil:
        -- none). Numbers are written with %d (what tostring writes for
        -- these integers, for less). A calendar window's name and end come
        -- from, or go to, `periods_at` (the vote's memo of its periods, at
        -- the same `now` and offset: { name, end } by kind; nil: none).
        -- (Written out here, not a function: one closure less a call.)
        last_window = window
        if window == 'second' then
          last_id, last_finish = format('%d', now), now + 1
        elseif window == 'minute' then
          local m = (now - now % 60) / 60
          last_id, last_finish = format('m%d', m), (m + 1) * 60
        elseif window == 'campaign' then
          last_id, last_finish = 'campaign', campaign_end
        else
          local periods_at = ctx.periods_at
          local p = periods_at and periods_at[window]
          if p then
            last_id, last_finish = p[1], p[2]
          else
            local _
            last_id, _, last_finish = period(window, now, offset)
            if periods_at then periods_at[window] = { last_id, last_finish } end
          end
        end
      end
      id, finish = last_id, last_finish
    end
    -- A window that outlives the campaign never resets within it.
    local never = window == 'campaign' or (campaign_end ~= nil and finish ~= nil and finish >= campaign_end)
    local key -- the rule's key (a string counter's depends on the subject)
    if voter then
      voter_key = voter_key or (ns .. 'rlu:' .. user)
      key = voter_key
    elseif bucket_rule then
      -- the user's bucket (above)
      bucket = bucket or format('%d', tonumber(redis.sha1hex(user):sub(7, 8), 16) % LIMIT_BUCKETS)
      key = ns .. 'rlb:' .. name .. ':' .. id .. ':' .. bucket
    elseif window == 'campaign' then
      key = ns .. 'rl:' .. name .. ':campaign'
    end
    local nby = #by
    for k = 1, npairs do
      local subject, rest -- rest: without the user's part (legacy, below)
      for j = 1, nby do
        local dim, part = by[j], nil
        if dim == 'user' then
          if not voter then
            user_part = user_part or format('%d:%s', #user, user)
            part = user_part
          end
        elseif dim == 'option' then
          if npairs == 1 then
            if not option_part then
              local board, option = pairs[1].board, pairs[1].option
              option_part = format('%d:%s%d:%s', #board, board, #option, option)
            end
            part = option_part
          else
            option_parts = option_parts or {}
            part = option_parts[k]
            if not part then
              local board, option = pairs[k].board, pairs[k].option
              part = format('%d:%s%d:%s', #board, board, #option, option)
              option_parts[k] = part
            end
          end
        elseif dim == 'channel' then
          channel_part = channel_part or format('%d:%s', #channel, channel)
          part = channel_part
        else
          device_part = device_part or format('%d:%s', #device, device)
          part = device_part
        end
        if part then
          subject = subject and (subject .. '|' .. part) or part
          if legacy and dim ~= 'user' then rest = rest and (rest .. '|' .. part) or part end
        end
      end
      subject = subject or ''
      local counter, field, was = key, false, false
      if voter then
        field = subject == '' and name or (name .. '|' .. subject)
      elseif bucket_rule then
        field = subject
        if legacy then
          -- the field this counter had in the voter's hash before the
          -- upgrade to layout 3: the user's own subject left out
          was = rest and (name .. '|' .. rest) or name
        end
      elseif window == 'campaign' then
        field = subject
      else
        counter = ns .. 'rl:' .. name .. ':' .. id .. ':' .. subject
      end
      local check, id_of
      if by_key then
        id_of = field and (counter .. '\0' .. field) or counter
        check = by_key[id_of]
      else
        -- one pair: two rules meet on a counter only by their names (one
        -- repeated, or a voter field RULE|SUBJECT another rule's name)
        for x = 1, n do
          local c = checks[x]
          if c[2] == counter and c[3] == field then
            check = c
            break
          end
        end
      end
      if not check then
        check = { rule, counter, field, 0, allowance, finish or false, never, voter, bucket_rule, was,
          false, 0, 0, 0, false, false, false }
        if by_key then by_key[id_of] = check end
        if was then checks.legacy_key = ns .. 'rlu:' .. user end
        n = n + 1
        checks[n] = check
      end
      check[4] = check[4] + cost
    end
  end
  return checks
end

-- Evaluate every check without writing (each check gets its slots 11..17,
-- limit_plan). Returns the refusal (nil when all pass) as
-- { rule, retry_after, remaining = { rule name -> votes left } }, the
-- remaining table made only then (a vote that passes has no use for it).
-- The time is the plan's: second `now` and `usec`, the microsecond within
-- it (lib/clock's pair: the server's, or 0 on the explicit clock), which
-- rolling rules count from. All rolling arithmetic is on integers:
-- durations from now as (whole microseconds, remainder / limit).
local function limit_evaluate(checks)
  local now, usec = checks.now, checks.usec
  local refused, retry = nil, 0
  -- n emission intervals (iq + ir / l microseconds each) as whole
  -- microseconds and a remainder in 0..l-1 (units of 1/l microsecond):
  -- made for a rolling rule only (a closure costs every call that makes it)
  local intervals
  local n, fields, nfields, voter = #checks, nil, 0, checks.legacy_key
  -- the reads' positions follow the checks' order (counted again below)
  for i = 1, n do
    local c = checks[i]
    if c[8] then -- voter
      voter = c[2]
      fields = fields or {}
      nfields = nfields + 1
      fields[nfields] = c[3]
    end
    if c[10] then -- legacy
      fields = fields or {}
      nfields = nfields + 1
      fields[nfields] = c[10]
    end
  end
  local mine
  if voter then
    -- one read for every counter in the voter's hash, and its expiry
    fields = fields or {}
    fields[nfields + 1] = '@'
    mine = rcall('HMGET', voter, unpack(fields))
    local at_ = mine[nfields + 1]
    checks.voter_key = voter
    checks.voter_expiry = at_ and stored_int(at_, 1, 253402300800, voter, '@') or 0
  end
  local at_field = 0
  for i = 1, n do
    local c = checks[i]
    local rule, key, field, need, allowance, ends, never, in_voter, legacy = c[1], c[2], c[3], c[4], c[5], c[6], c[7],
      c[8], c[10]
    local value -- false when absent
    if in_voter then
      at_field = at_field + 1
      value = mine[at_field]
      if value and not rule.rolling then
        -- "END:COUNT:WINDOW": a count of this window, or of an earlier one
        -- (0); of another WINDOW (the rule changed under its name) or a
        -- rolling TAT (it was rolling): 0 too. "END:COUNT" (redvote 0.3)
        -- is of this window.
        local finish, count, kind = value:match('^(%d+):(%d+):?(%a*)$')
        if not finish and value:match('^%d+%.%d') then
          value = false
        else
          if not finish or #finish > 12 or #count > 16 or #kind > 8 then
            fail('INVALID_CONFIG', voter .. ' ' .. field .. ' is corrupt: "' .. value:sub(1, 40) .. '"')
          end
          finish = tonumber(finish)
          local same = kind == '' or kind == rule.window
          value = same and finish == ends and count or false
          -- a vote dated before the window its counter holds (the
          -- explicit clock, or a server clock that went back): that
          -- window's count is gone, so the vote is refused rather than
          -- counted afresh
          c[15] = same and finish > ends -- behind
        end
      end
    elseif field then
      value = rcall('HGET', key, field)
    else
      -- a string counter: a GET each (a key of another type is refused,
      -- REDVOTE_INVALID_CONFIG, as every key the vote writes: MGET would
      -- read it as absent and the spend overwrite it; and a vote has one
      -- or two of them, where MGET's reply table costs more than a GET)
      value = rcall('GET', key)
    end
    local old -- a bucketed counter's field in the voter's hash (legacy)
    if legacy then
      at_field = at_field + 1
      old = mine[at_field]
    end
    c[11] = value and true or false -- existed
    local left, wait
    if rule.rolling then
      intervals = intervals or function(n, iq, ir, l)
        local r = n * ir
        return n * iq + math.floor(r / l), r % l
      end
      local l = rule.limit
      local iq, ir = math.floor(rule.per * 1000000 / l), (rule.per * 1000000) % l
      -- d = TAT - now (dq us + dr / l us), from the stored TAT
      local dq, dr = 0, 0
      if value then
        local s, u, r, den = value:match('^(%d+)%.(%d%d%d%d%d%d)%+(%d+)/(%d+)$')
        if not s then s, u = value:match('^(%d+)%.(%d+)$') end
        -- a TAT, or (in the voter's hash) a fixed window's count of a rule
        -- that was fixed under this name: no state; anything else is corrupt
        if (not s and not (in_voter and value:match('^%d+:%d+:?%a*$'))) or (s and (#s > 12
            or (r and (#r > 16 or #den > 16)))) then
          fail('INVALID_CONFIG', key .. ' ' .. (field or 'value') .. ' is corrupt: "' .. value:sub(1, 40) .. '"')
        end
        if s then
          dq = (tonumber(s) - now) * 1000000 + tonumber(u:sub(1, 6) .. string.rep('0', 6 - #u)) - usec
          -- a remainder stored under another limit: rounded down to 1/l
          if r and tonumber(den) > 0 then dr = math.floor(tonumber(r) * l / tonumber(den)) % l end
        end
      end
      c[14] = 0 -- reset_in
      if dq > 0 or (dq == 0 and dr > 0) then
        c[14] = math.ceil((dq + (dr > 0 and 1 or 0)) / 1000000)
      else
        dq, dr = 0, 0 -- max(TAT, now)
      end
      -- remaining: allowance - ceil(d / interval)
      local k = math.ceil((dq + dr / l) / (iq + ir / l))
      local kq, kr = intervals(k, iq, ir, l)
      while kq < dq or (kq == dq and kr < dr) do
        k = k + 1
        kq, kr = intervals(k, iq, ir, l)
      end
      while k > 0 do
        kq, kr = intervals(k - 1, iq, ir, l)
        if kq < dq or (kq == dq and kr < dr) then break end
        k = k - 1
      end
      left = allowance - k
      -- passes when d + need * interval <= allowance * interval
      if need > allowance then
        wait = -1
      else
        local mq, mr = intervals(allowance - need, iq, ir, l)
        if dq > mq or (dq == mq and dr > mr) then
          local wq, wr = dq - mq, dr - mr -- how long until it would pass
          if wr < 0 then wq, wr = wq - 1, wr + l end
          wait = math.ceil((wq + (wr > 0 and 1 or 0)) / 1000000)
        end
      end
      -- the new TAT: now + d + need * interval
      local nq, nr = intervals(need, iq, ir, l)
      nq, nr = dq + nq, dr + nr
      if nr >= l then nq, nr = nq + 1, nr - l end
      local total = usec + nq
      local secs = now + math.floor(total / 1000000)
      local micros = total % 1000000
      c[16] = string.format('%d.%06d', secs, micros) .. (nr > 0 and ('+' .. nr .. '/' .. l) or '') -- the TAT
      c[17] = secs + ((micros > 0 or nr > 0) and 1 or 0) + 1 -- its expiry
    else
      local used = value and stored_int(value, 0, 9007199254740991, key, field or 'value') or 0
      if old then
        -- a bucketed counter of a campaign upgraded to layout 3 also counts
        -- what the voter's hash held for this very window before the
        -- upgrade (until that window ends: nothing writes it any more);
        -- a value of another window, kind or a rolling TAT counts 0
        local finish, count, kind = old:match('^(%d+):(%d+):?(%a*)$')
        if finish and #count <= 16 and tonumber(finish) == ends and (kind == '' or kind == rule.window) then
          used = used + tonumber(count)
        end
      end
      c[12] = used
      local behind = c[15]
      left = allowance - used
      if behind then
        left, wait = 0, -1
      elseif used + need > allowance then
        -- More than a whole window allows can never pass: -1 as well.
        wait = (never or not ends or need > allowance) and -1 or (ends - now)
      end
      c[14] = (never or behind or not ends) and -1 or (ends - now) -- reset_in
    end
    if not (left > 0) then left = 0 end -- math.max(0, left)
    c[13] = left
    if wait then
      refused = refused or rule.name
      if wait < 0 or retry < 0 then retry = -1 elseif wait > retry then retry = wait end
    end
  end
  if not refused then return nil end
  -- a rule's votes left: the least of its counters'
  local remaining = {}
  for i = 1, n do
    local c = checks[i]
    local name, left = c[1].name, c[13]
    local least = remaining[name]
    if least == nil or left < least then remaining[name] = left end
  end
  return { rule = refused, retry_after = retry, remaining = remaining }
end
