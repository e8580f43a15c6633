--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/periods"
--- @include "lib/stats_buckets"
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
-- device) field `field` of bucket `key`, `votes` more: its own while it is
-- kept (`have`, its stored count) or while the bucket has fewer than
-- STATS_FIELDS of them (`n`, written to `nfield`), else the catch-all
-- field's (`other`, its count so far, which the caller writes). Returns n
-- and other as they are after it.
local function stats_count(set, key, votes, field, have, n, nfield, other)
  if have then
    set[#set + 1] = field; set[#set + 1] = stats_text(stats_int(have, key, field) + votes)
  elseif n < STATS_FIELDS then
    set[#set + 1] = field; set[#set + 1] = stats_text(votes)
    n = n + 1
    set[#set + 1] = nfield; set[#set + 1] = stats_text(n)
  else
    other = other + votes
  end
  return n, other
end

-- Before the first write: the statistics that `votes` (each { now,
-- channel, device, user (or users: a fold's like votes), pairs = { {
-- board, weight, count (like votes; nil: 1) }, ... }, periods_at })
-- add on `boards` (v: ns, offset, stats_keep, and `gone`, a server time
-- at or before which an expiring bucket is already gone: a fold's buckets
-- past their retention are not made again), every key read and checked (a
-- wrong type, a corrupt counter). The counts of many votes add up as if
-- they came one by one: a bucket's new channel (device) fields take their
-- places in the order the votes first name them. Returns the plan
-- stats_write takes, and the first vote's bucket names { hour = P, day = P }.
local function stats_plan(v, boards, votes)
  local ns = v.ns
  local plan = { buckets = {}, people = {} }
  local by_key, people_by = {}, {}
  local longest, forever = 0, false
  -- the campaign's retention (configure's stats_keep: -1 kept); a
  -- campaign not configured since it was introduced: the voted boards'
  local fixed = v.stats_keep
  local first
  for _, vote in ipairs(votes) do
    local names = stats_buckets(vote.now, v.offset, vote.periods_at)
    first = first or names
    vote.buckets = names
    local chf = vote.channel ~= '' and 'ch:' .. vote.channel or nil
    local devf = vote.device ~= '' and 'dev:' .. vote.device or nil
    for _, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      local keep = stats_keep(b)
      if keep then
        if keep > longest then longest = keep end
      else
        forever = true
      end
      for _, kind in ipairs(STATS_KINDS) do
        local name, finish = names[kind][1], names[kind][2]
        local expiry = keep and finish + keep or false
        if not (v.gone and expiry and expiry <= v.gone) then
          local key = ns .. 'st:' .. b.name .. ':' .. name
          local s = by_key[key]
          if not s then
            -- (new and set, below, made here: a field added later rehashes)
            s = { key = key, votes = 0, amount = 0, expiry = expiry, new = false, set = false, ch = {}, dev = {} }
            by_key[key] = s
            plan.buckets[#plan.buckets + 1] = s
          end
          local n = pair.count or 1
          s.votes = s.votes + n
          s.amount = s.amount + pair.weight * n
          if chf then
            if not s.ch[chf] then s.ch[chf] = 0; s.ch[#s.ch + 1] = chf end
            s.ch[chf] = s.ch[chf] + n
          end
          if devf then
            if not s.dev[devf] then s.dev[devf] = 0; s.dev[#s.dev + 1] = devf end
            s.dev[devf] = s.dev[devf] + n
          end
        end
      end
    end
  end
  for _, s in ipairs(plan.buckets) do
    -- every field the votes change is read (and checked) here, and
    -- written at once by one HSET of the new values (stats_write)
    local key = s.key
    local fields = { 'votes', 'amount', 'nch', 'ndev', 'ch:*', 'dev:*' }
    for _, f in ipairs(s.ch) do fields[#fields + 1] = f end
    for _, f in ipairs(s.dev) do fields[#fields + 1] = f end
    local h = rcall('HMGET', key, unpack(fields))
    s.new = not h[1]
    local set = { 'votes', stats_text(stats_int(h[1], key, 'votes') + s.votes),
      'amount', stats_text(stats_int(h[2], key, 'amount') + s.amount) }
    local at, other = 7, stats_int(h[5], key, 'ch:*')
    local n = stats_int(h[3], key, 'nch')
    for _, f in ipairs(s.ch) do
      n, other = stats_count(set, key, s.ch[f], f, h[at], n, 'nch', other)
      at = at + 1
    end
    if other > 0 and #s.ch > 0 then set[#set + 1] = 'ch:*'; set[#set + 1] = stats_text(other) end
    other, n = stats_int(h[6], key, 'dev:*'), stats_int(h[4], key, 'ndev')
    for _, f in ipairs(s.dev) do
      n, other = stats_count(set, key, s.dev[f], f, h[at], n, 'ndev', other)
      at = at + 1
    end
    if other > 0 and #s.dev > 0 then set[#set + 1] = 'dev:*'; set[#set + 1] = stats_text(other) end
    s.set = set
  end
  if fixed then
    forever, longest = fixed == -1, fixed
  end
  for _, vote in ipairs(votes) do
    for _, kind in ipairs(STATS_KINDS) do
      local name, finish = vote.buckets[kind][1], vote.buckets[kind][2]
      local p = people_by[name]
      if not p then
        local expiry = (not forever) and finish + longest or nil
        if v.gone and expiry and expiry <= v.gone then
          p = false
        else
          p = { hll = ns .. 'sp:' .. name, count = ns .. 'sn:' .. name, expiry = expiry, users = {}, seen = {} }
          local magic = rcall('GETRANGE', p.hll, '0', '3')
          if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', p.hll .. ' is not a HyperLogLog') end
          p.new = magic == '' -- (the count needs no check: SET replaces a key of any type)
          plan.people[#plan.people + 1] = p
        end
        people_by[name] = p
      end
      if p then
        for _, user in ipairs(vote.users or { vote.user }) do
          if not p.seen[user] then
            p.seen[user] = true
            p.users[#p.users + 1] = user
          end
        end
      end
    end
  end
  return plan, { hour = first.hour[1], day = first.day[1] }
end

-- The writes of a plan from stats_plan (validated: nothing here refuses).
local function stats_write(plan)
  for _, s in ipairs(plan.buckets) do
    rcall('HSET', s.key, unpack(s.set))
    if s.new and s.expiry then rcall('EXPIREAT', s.key, s.expiry) end
  end
  for _, p in ipairs(plan.people) do
    if rcall('PFADD', p.hll, unpack(p.users)) == 1 then
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
