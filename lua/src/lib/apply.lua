--- @include "lib/prologue"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/periods"
--- @include "lib/exact"
--- @include "lib/stats"
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
-- A vote: { user, channel, device, now (its Unix second), pairs = { {
-- board, option, weight }, ... }, periods_at (the vote's period names
-- cache: kind -> { name, end, next name, next end }; made when absent) }.
-- Needs rcall, fail (lib/prologue), expire_at (lib/board), period
-- (lib/periods), exact_limit, units_of, decimal_text (lib/exact),
-- stats_plan, stats_write (lib/stats).

-- Before the first write: the entries `votes` write, every key read and
-- checked. An entry that would leave the exact range (lib/exact) is
-- refused by ctx.out_of_range (the vote's refusal), or without one (a
-- fold, whose votes are accepted) not written and counted in the plan's
-- `overflow`. Returns the
-- plan apply_write takes. Entries are arrays (cheaper to make than named
-- fields): [1] key, [2] board settings, [3] option, [4] scale (false: a
-- real board), [5] units after the votes, [6] the key's expiry (false:
-- none), [7] the score before (false: none), [8] which (real:P or
-- shown:P), [9] units added, [10] the side keys' state (lib/order, false:
-- none), [11] the score written, as text, [12] true: beyond the range.
local function apply_plan(ctx, votes)
  local ns, boards = ctx.ns, ctx.boards
  local order_read_
  if ctx.sided and not ctx.dry then
--- @include "lib/order"
    ctx.order_read, ctx.order_write = order_read, order_write
    order_read_ = order_read
  end
  local p = { order = {}, overflow = 0 }
  local joined, order, unseen = {}, p.order, {}
  -- a key and an option meet twice only in a batch or a fold
  local join = #votes > 1 or #votes[1].pairs > 1
  local limit -- the exact range of the current pair's board (lib/exact)
  local function add(b, which, name, key, option, units, scale, expiry)
    local id = join and key .. '\0' .. option
    local e = id and joined[id]
    if not e and ctx.dry then
      -- planned without reads: the entry and its amount only
      e = { key, b, option, scale or false, 0, expiry or false, false, which .. name, 0, false, false, false }
      if id then joined[id] = e end
      order[#order + 1] = e
    end
    if not e then
      local old, known
      if scale then
        old = rcall('ZSCORE', key, option)
        known = old
      else
        known = rcall('ZCARD', key) > 0
      end
      e = { key, b, option, scale or false, old and units_of(old, scale) or 0, expiry or false, old or false,
        which .. name, 0, b.sides[1] and order_read_(ns, b, key, option) or false, false, false }
      if id then joined[id] = e end
      order[#order + 1] = e
      if not known then
        local t = unseen[b.name]
        if not t then t = { seen = {} }; unseen[b.name] = t end
        local member_of_index = which .. name
        if not t.seen[member_of_index] then
          t.seen[member_of_index] = true
          t[#t + 1] = { member_of_index, expiry or false }
        end
      end
    end
    local u = e[5] + units
    e[5] = u
    e[9] = e[9] + units
    if scale and not ctx.dry and (u >= limit or -u >= limit) then
      if ctx.out_of_range then ctx.out_of_range(b, option, which .. name, limit, scale) end
      if not e[12] then p.overflow = p.overflow + 1 end
      e[12] = true
    end
    return e
  end
  local gone, by_time = ctx.gone, {}
  for _, vote in ipairs(votes) do
    -- each period kind's current period (and the next one, for the carry)
    -- once a vote time: every pair of a vote votes at the same second
    local periods_at = vote.periods_at or by_time[vote.now]
    if not periods_at then periods_at = {}; by_time[vote.now] = periods_at end
    vote.periods_at = periods_at
    local shown_at = ctx.reply and {}
    vote.shown_at = shown_at
    for n, pair in ipairs(vote.pairs) do
      local b = boards[pair.board]
      local scale, unit = b.decimals, 10 ^ b.decimals
      limit = exact_limit(scale)
      local carried = b.carry_millionths > 0 and math.floor(pair.weight * b.carry_millionths * unit / 1000000 + 0.5) or 0
      local board_keys = ns .. 'b:' .. b.name
      local shown = shown_at and {}
      if shown_at then shown_at[n] = shown end
      for _, kind in ipairs(b.periods) do
        local pa = periods_at[kind]
        if not pa then
          local name, _, finish = period(kind, vote.now, ctx.offset)
          pa = { name, finish }
          periods_at[kind] = pa
        end
        local name, finish = pa[1], pa[2]
        local expiry = expire_at(b, kind, finish)
        if ctx.refuse then ctx.refuse(b, name, expiry) end
        if not (gone and expiry and expiry <= gone) then
          add(b, 'real:', name, board_keys .. ':real:' .. name, pair.option, 1, nil, expiry)
          local e = add(b, 'shown:', name, board_keys .. ':shown:' .. name, pair.option, pair.weight * unit, scale, expiry)
          if shown then
            shown[#shown + 1] = name
            shown[#shown + 1] = e
          end
        end
        if finish and carried > 0 then
          if not pa[3] then
            local next_name, _, next_finish = period(kind, finish, ctx.offset)
            pa[3], pa[4] = next_name, next_finish
          end
          local next_expiry = expire_at(b, kind, pa[4])
          if not (gone and next_expiry and next_expiry <= gone) then
            add(b, 'shown:', pa[3], board_keys .. ':shown:' .. pa[3], pair.option, carried, scale, next_expiry)
          end
        end
      end
    end
  end

  if ctx.dry then return p end

  -- The other keys written, read (and checked: a wrong type, a corrupt
  -- sequence counter, a key that is not a HyperLogLog) before the first
  -- write: the period index (for boards not seen to exist: the index
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
    participant(ns .. 'hll', vote.user)
    for _, pair in ipairs(vote.pairs) do participant(ns .. 'hll:' .. pair.board .. ':' .. pair.option, vote.user) end
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
  for i, e in ipairs(order) do
    if not e[12] then
      local key, option, scale, units, ordered = e[1], e[3], e[4], e[5], e[10]
      local old, text = e[7], nil
      if not scale then
        text = rcall('ZINCRBY', key, units == 1 and '1' or units, option)
        -- the count before (none: the member is new to this real board,
        -- whose counts are 1 and more)
        if ordered and tonumber(text) ~= units then old = string.format('%.0f', tonumber(text) - units) end
      else
        text = decimal_text(units, scale)
        rcall('ZADD', key, text, option)
      end
      e[11] = text
      if ordered then
        ctx.order_write(ns, e[2], key, option, old, text, ordered, seq + i, e[6])
      end
    end
  end
  if p.fresh then
    for board, f in pairs(p.fresh) do p.track(ns, board, f, p.listed[board]) end
  end
  for _, h in ipairs(p.hlls) do rcall('PFADD', h.key, unpack(h)) end
  stats_write(p.stats)
end
