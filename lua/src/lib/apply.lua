--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/periods"
--- @include "lib/exact"
--- @include "lib/stats"
--- @include "lib/entries"
-- apply: the writes of accepted campaign votes, one immediate vote's and a
-- fold's many (lib/fold) by the same code, so that both modes give the
-- same boards. apply_plan reads and checks every key first, apply_write
-- writes. Many votes write one entry per (board period, option): their
-- amounts summed, their participants in one PFADD a HyperLogLog, their
-- statistics in one HSET a bucket.
--
-- ctx: ns, boards (board name -> lib/board's settings), offset, stats_keep
-- (the root's, or nil), sided (a board keeps side keys, lib/order),
-- first_ties (one has ties "first"), reply (keep each pair's shown
-- entries for the vote's reply), refuse (the explicit clock's retention
-- check, lib/retention's refuse_expired bound to the server's time, or
-- nil), gone (a fold: the server's time; a board or bucket whose expiry
-- is at or before it is gone already, and is not made again).
-- A vote: { user (or users, a fold's like votes), channel, device, now
-- (its Unix second), pairs = { { board, option, weight, count (the like
-- votes it stands for; nil: 1) }, ... }, periods_at (the vote's period names
-- cache: kind -> { name, end, next name, next end }; made when absent) }.
-- Needs rcall, fail (lib/prologue), expire_at (lib/board), period
-- (lib/periods), exact_limit, units_of, decimal_text (lib/exact),
-- stats_plan, stats_write (lib/stats).

-- Before the first write: the entries `votes` write (lib/entries), every
-- key read and checked. An entry that would leave the exact range
-- (lib/exact) is refused by ctx.out_of_range (the vote's refusal), or
-- without one (a fold, whose votes are accepted) not written and counted
-- in the plan's `overflow`. Returns the plan apply_write takes.
local function apply_plan(ctx, votes)
  local order_read_
  if ctx.sided then
--- @include "lib/order"
    ctx.order_read, ctx.order_write = order_read, order_write
    order_read_ = order_read
  end
  local p = planned_entries(ctx, votes)
  p.overflow = 0
  local ns, boards, groups, gone = ctx.ns, ctx.boards, p.groups, ctx.gone

  -- Every board key read once (ZMSCORE of its options: a wrong type is
  -- refused here), each entry's units after the votes checked against the
  -- exact range, and the side keys read (lib/order); a key that does not
  -- exist is looked up in the period index (below).
  local unseen = {}
  for _, g in ipairs(groups) do
    local first = g[1]
    local key, b, scale = first[1], first[2], first[4]
    local members = {}
    for i, e in ipairs(g) do members[i] = e[3] end
    local scores = rcall('ZMSCORE', key, unpack(members))
    local known = false
    local limit = scale and exact_limit(scale)
    for i, e in ipairs(g) do
      local old = scores[i]
      if old then
        known = true
        e[7] = old
        e[5] = (scale and units_of(old, scale) or tonumber(old)) + e[9]
      else
        e[5] = e[9]
      end
      local u = e[5]
      if scale and (u >= limit or -u >= limit) then
        if ctx.out_of_range then ctx.out_of_range(b, e[3], e[8], limit, scale) end
        if not e[12] then p.overflow = p.overflow + 1 end
        e[12] = true
      end
      if b.sides[1] then e[10] = order_read_(ns, b, key, e[3]) end
    end
    if not known and rcall('EXISTS', key) == 0 then
      local t = unseen[b.name]
      if not t then t = { seen = {} }; unseen[b.name] = t end
      if not t.seen[first[8]] then
        t.seen[first[8]] = true
        t[#t + 1] = { first[8], first[6] }
      end
    end
  end

  -- The other keys written, read (and checked: a wrong type, a corrupt
  -- sequence counter, a key that is not a HyperLogLog) before the first
  -- write: the period index (for boards that do not exist: the index
  -- members to add by board, lib/board_write, made only then), the
  -- sequence counter, the participant HyperLogLogs.
  if next(unseen) then
--- @include "lib/board_write"
    p.fresh, p.listed, p.track = {}, {}, track_periods
    for board in pairs(boards) do
      local t = unseen[board]
      if t then
        p.fresh[board], p.listed[board] = new_periods(ns, board, t)
      else
        rcall('ZCARD', ns .. 'periods:' .. board) -- its type only: one of the wrong type is refused
      end
    end
  else
    for board in pairs(boards) do
      rcall('ZCARD', ns .. 'periods:' .. board) -- its type only: one of the wrong type is refused
    end
  end
  if ctx.first_ties then stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value') end
  local hlls, by_hll = {}, {}
  local function participant(hll, user)
    local h = by_hll[hll]
    if not h then h = { key = hll, seen = {} }; by_hll[hll] = h; hlls[#hlls + 1] = h end
    if not h.seen[user] then h.seen[user] = true; h[#h + 1] = user end
  end
  for _, vote in ipairs(votes) do
    for _, user in ipairs(vote.users or { vote.user }) do
      participant(ns .. 'hll', user)
      for _, pair in ipairs(vote.pairs) do participant(ns .. 'hll:' .. pair.board .. ':' .. pair.option, user) end
    end
  end
  for _, h in ipairs(hlls) do
    local magic = rcall('GETRANGE', h.key, '0', '3')
    if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', h.key .. ' is not a HyperLogLog') end
  end
  p.hlls = hlls
  p.stats, p.buckets = stats_plan({ ns = ns, offset = ctx.offset, stats_keep = ctx.stats_keep, gone = gone }, boards,
    votes)
  return p
end

-- The writes of a plan (validated: nothing here refuses). The sequence
-- numbers, the boards and their side keys, the period index, the
-- participant HyperLogLogs, the statistics; each entry's score text.
local function apply_write(ctx, p)
  local ns, order = ctx.ns, p.order
  local seq = 0
  if ctx.first_ties then seq = rcall('INCRBY', ns .. 'seq', #order) - #order end
  -- each board key in one ZADD of its entries' new scores (exact text:
  -- counts on real boards, decimals on shown ones)
  for _, g in ipairs(p.groups) do
    local args = {}
    for _, e in ipairs(g) do
      if not e[12] then
        local text = e[4] and decimal_text(e[5], e[4]) or string.format('%.0f', e[5])
        e[11] = text
        args[#args + 1] = text
        args[#args + 1] = e[3]
      end
    end
    if args[1] then rcall('ZADD', g[1][1], unpack(args)) end
  end
  -- the side keys, entry by entry, once every board is written
  if ctx.sided then
    for i, e in ipairs(order) do
      if e[10] and not e[12] then ctx.order_write(ns, e[2], e[1], e[3], e[7] or nil, e[11], e[10], seq + i, e[6]) end
    end
  end
  if p.fresh then
    for board, f in pairs(p.fresh) do p.track(ns, board, f, p.listed[board]) end
  end
  for _, h in ipairs(p.hlls) do rcall('PFADD', h.key, unpack(h)) end
  stats_write(p.stats)
end
