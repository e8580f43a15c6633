--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/periods"
-- stats: the statistics counters the vote writes in O(1) a pair, and
-- campaign_stats reads (docs/statistics.md). Per board B and per hour and
-- day bucket P (hour:2026-03-17T12, day:2026-03-17, in the campaign's
-- offset):
--   <ns>st:B:P   hash: votes (pairs voted on B), amount (their weights
--                summed), ch:C / dev:D (pairs by channel / device, the
--                first 32 distinct values a bucket; later ones count in
--                ch:* / dev:*, a field no name can take), nch / ndev (how
--                many ch: / dev: fields there are), voided / voided_amount
--                (pairs voided later, by campaign_void*, counted in the
--                bucket of the vote)
--   <ns>sp:P     HyperLogLog: the campaign's participants of the bucket
--   <ns>sn:P     string: its PFCOUNT, cached by the vote that changed it
--                (so that campaign_stats needs no PFCOUNT, a write for
--                Redis, and runs no-writes on a replica)
-- A board's buckets expire at their end plus the longest retention of the
-- board's hour/day/week/month boards (never, when one of them is kept
-- forever or the board keeps only its total); a campaign bucket at its end
-- plus the longest of its boards' (the root's stats_keep, written by
-- campaign_configure; -1: kept), as of its first vote.
-- Needs rcall, fail (lib/prologue), stored_int (lib/stored), period
-- (lib/periods).

-- Distinct channel (and device) fields a bucket keeps; later values count
-- in ch:* (dev:*).
local STATS_FIELDS = 32
local STATS_KINDS = { 'hour', 'day' }

-- The retention of board `b`'s statistics: seconds after a bucket's end;
-- false: kept (cached in b).
local function stats_keep(b)
  if b.stats_keep ~= nil then return b.stats_keep end
  local longest = false
  for _, kind in ipairs(b.periods) do
    if kind ~= 'total' then
      local k = b.keep[kind] or 0
      if k == 0 then longest = false; break end
      if not longest or k > longest then longest = k end
    end
  end
  b.stats_keep = longest
  return longest
end

-- A stored counter of a statistics hash (nil: 0).
local function stats_int(v, key, field)
  return v and stored_int(v, 0, 9007199254740991, key, field) or 0
end

-- A count as the text HSET stores (a Lua number would go as %.14g).
local function stats_text(n)
  return string.format('%.0f', n)
end

-- Add to `set` (HSET's field, value list) the new count of a channel (or
-- device) field `field` of bucket `key`: its own while it is kept (`have`,
-- its stored count) or while the bucket has fewer than STATS_FIELDS of
-- them (`n`, stored in `nfield`), else the field `other` (`other_have`).
local function stats_count(set, key, votes, field, have, n, nfield, other, other_have)
  if have then
    set[#set + 1] = field; set[#set + 1] = stats_text(stats_int(have, key, field) + votes)
  elseif n < STATS_FIELDS then
    set[#set + 1] = field; set[#set + 1] = stats_text(votes)
    set[#set + 1] = nfield; set[#set + 1] = stats_text(n + 1)
  else
    set[#set + 1] = other; set[#set + 1] = stats_text(stats_int(other_have, key, other) + votes)
  end
end

-- Before the first write: the statistics a vote (v: ns, now, offset,
-- user, channel, device) of `pairs_` (board, weight) on `boards` adds,
-- every key read and checked (a wrong type, a corrupt counter). Returns
-- the plan stats_write takes, and the bucket names { hour = P, day = P }.
local function stats_plan(v, boards, pairs_)
  local ns = v.ns
  local plan = { buckets = {}, people = {} }
  local names = {}
  local by_key = {}
  local longest, forever = 0, false
  for _, kind in ipairs(STATS_KINDS) do
    local known = v.periods_at and v.periods_at[kind]
    if known then
      names[kind] = known -- { name, end, ... } (the vote's periods_at)
    else
      local name, _, finish = period(kind, v.now, v.offset)
      names[kind] = { name, finish }
    end
  end
  for _, pair in ipairs(pairs_) do
    local b = boards[pair.board]
    local keep = stats_keep(b)
    if keep then
      if keep > longest then longest = keep end
    else
      forever = true
    end
    for _, kind in ipairs(STATS_KINDS) do
      local name, finish = names[kind][1], names[kind][2]
      local key = ns .. 'st:' .. b.name .. ':' .. name
      local s = by_key[key]
      if not s then
        -- (new and set, below, made here: a field added later rehashes)
        s = { key = key, votes = 0, amount = 0, expiry = keep and finish + keep or false, new = false, set = false }
        by_key[key] = s
        plan.buckets[#plan.buckets + 1] = s
      end
      s.votes = s.votes + 1
      s.amount = s.amount + pair.weight
    end
  end
  local chf = v.channel ~= '' and 'ch:' .. v.channel or nil
  local devf = v.device ~= '' and 'dev:' .. v.device or nil
  for _, s in ipairs(plan.buckets) do
    -- every field the vote changes is read (and checked) here, and
    -- written at once by one HSET of the new values (stats_write)
    local key = s.key
    local h = rcall('HMGET', key, 'votes', 'amount', 'nch', 'ndev', chf or 'ch:*', devf or 'dev:*', 'ch:*', 'dev:*')
    s.new = not h[1]
    local set = { 'votes', stats_text(stats_int(h[1], key, 'votes') + s.votes),
      'amount', stats_text(stats_int(h[2], key, 'amount') + s.amount) }
    if chf then stats_count(set, key, s.votes, chf, h[5], stats_int(h[3], key, 'nch'), 'nch', 'ch:*', h[7]) end
    if devf then stats_count(set, key, s.votes, devf, h[6], stats_int(h[4], key, 'ndev'), 'ndev', 'dev:*', h[8]) end
    s.set = set
  end
  -- the campaign's retention (configure's stats_keep: -1 kept); a
  -- campaign not configured since it was introduced: the voted boards'
  if v.stats_keep then
    forever, longest = v.stats_keep == -1, v.stats_keep
  end
  for _, kind in ipairs(STATS_KINDS) do
    local name, finish = names[kind][1], names[kind][2]
    local p = { hll = ns .. 'sp:' .. name, count = ns .. 'sn:' .. name,
      expiry = (not forever) and finish + longest or nil }
    local magic = rcall('GETRANGE', p.hll, '0', '3')
    if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', p.hll .. ' is not a HyperLogLog') end
    p.new = magic == '' -- (the count needs no check: SET replaces a key of any type)
    plan.people[#plan.people + 1] = p
  end
  return plan, { hour = names.hour[1], day = names.day[1] }
end

-- The writes of a plan from stats_plan (validated: nothing here refuses).
local function stats_write(plan, user)
  for _, s in ipairs(plan.buckets) do
    rcall('HSET', s.key, unpack(s.set))
    if s.new and s.expiry then rcall('EXPIREAT', s.key, s.expiry) end
  end
  for _, p in ipairs(plan.people) do
    if rcall('PFADD', p.hll, user) == 1 then
      -- the count is new with its HyperLogLog, and expires with it
      local n = rcall('PFCOUNT', p.hll)
      if not p.new then
        rcall('SET', p.count, n, 'KEEPTTL')
      elseif p.expiry then
        rcall('EXPIREAT', p.hll, p.expiry)
        rcall('SET', p.count, n, 'EXAT', p.expiry)
      else
        rcall('SET', p.count, n)
      end
    end
  end
end
