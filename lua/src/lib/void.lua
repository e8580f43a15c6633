--- @include "lib/prologue"
--- @include "lib/names"
--- @include "lib/stored"
--- @include "lib/board"
--- @include "lib/exact"
--- @include "lib/order"
--- @include "lib/stats"
--- @include "lib/entries"
--- @include "lib/board_stamp"
-- void: taking back what votes added (campaign_void, campaign_void_range).
-- A vote with an id (in <ns>vid:ID, as the record's third element) and a
-- vote in the capped vote log (<ns>log, field a) keep what they added, as
-- the JSON object
--   { t = time, u = user, c = channel, d = device,
--     h = its hour bucket, dy = its day bucket (lib/stats),
--     e = { { board, "real:P" / "shown:P", option, amount }, ... }: every
--         period board entry the vote wrote (carry included), the amount
--         a decimal text ("1" on real boards, the board's decimals on
--         shown ones),
--     s = { { board, weight [, gen] }, ... }: its pairs, for the
--         statistics, gen the board's remove_gen when the vote was cast
--         (absent: 0),
--     l = its entry in <ns>log (a vote logged), i = its vote id (in the
--         log), v = when it was voided (set by the void) }
-- or, for a buffered vote, the compact object: t, s and x = { { option,
-- board stamp }, ... } for each pair of s, from which void_expand plans
-- its entries again and names its buckets (with the stamp's offset); no
-- e, and no u, c, d, h or dy (records of 0.6's first buffered votes have
-- them).
-- every number as text. Voiding subtracts each amount from its board,
-- restoring the score the member would have without the vote: a real
-- count brought to 0 leaves the board (only votes write real boards); a
-- shown score leaves it only at 0 and when nothing but votes can have
-- made it (the option has no imported votes: votes and carries only add),
-- else it keeps the score, 0 or below included (an import may have
-- lowered it); a member that leaves takes its side keys along, as option
-- removal does, and a board so emptied leaves <ns>periods:B. It keeps the
-- tie rules' side keys (lib/order: the member's new score counts as
-- reached at the void's sequence number, as a vote's would), and counts
-- the pairs in their buckets' `voided` and `voided_amount` (lib/stats).
-- Boards, members and buckets gone since (expired, removed) are skipped,
-- and so is an option removed since the vote and configured again: the
-- board's remove_gen then is above the vote's gen, and <ns>removed:B
-- (campaign_configure) records, for each option removed, the remove_gen
-- of its last removal. Participants (HyperLogLogs) and rate limits are
-- not taken back. Needs rcall, fail (lib/prologue), name_ok (lib/names),
-- board_settings (lib/board), stored_int (lib/stored), units_of,
-- decimal_text (lib/exact), order_read, order_write, order_remove
-- (lib/order), stats_int, stats_buckets (lib/stats).

-- The longest text of a record that is not a name (a time, a bucket, a
-- period board's member, an amount, a log entry id): names are name_ok's.
local VOID_TEXT_MAX = 64

local function void_text(v, pattern)
  return type(v) == 'string' and #v <= VOID_TEXT_MAX and v:find(pattern) ~= nil
end

-- Whether `info` is such an object (what the vote wrote: no entry can
-- address a key outside the board's keys).
local function void_info_ok(info)
  if type(info) ~= 'table' or type(info.s) ~= 'table' or #info.s == 0 or #info.s > 50 then return false end
  if info.x ~= nil then
    -- a buffered vote's compact object: each pair's option and board stamp
    if type(info.x) ~= 'table' or #info.x ~= #info.s or info.e ~= nil then return false end
    for _, x in ipairs(info.x) do
      if type(x) ~= 'table' or not name_ok(x[1]) or type(x[2]) ~= 'string' or #x[2] > 200 then return false end
    end
    info.e = {}
  elseif type(info.e) ~= 'table' or #info.e == 0 or #info.e > 1000 then
    return false
  end
  -- a compact object may name no buckets, nor the voter: void_expand
  -- names the buckets (a voided record keeps them), and nothing reads the
  -- voter
  local compact = info.x ~= nil
  local function absent_or(ok, v) return (compact and v == nil) or ok end
  if not (absent_or(void_text(info.h, '^hour:%d%d%d%d%-%d%d%-%d%dT%d%d$'), info.h)
    and absent_or(void_text(info.dy, '^day:%d%d%d%d%-%d%d%-%d%d$'), info.dy)
    and absent_or(type(info.u) == 'string', info.u) and absent_or(type(info.c) == 'string', info.c)
    and absent_or(type(info.d) == 'string', info.d)
    and void_text(info.t, '^%d+$') and (info.l == nil or void_text(info.l, '^%d+%-%d+$'))) then
    return false
  end
  if compact and (info.h == nil) ~= (info.dy == nil) then return false end
  -- the stamp's offset names the buckets (void_expand): a campaign's
  if compact then
    local offset = tonumber(info.x[1][2]:match('|(%-?%d+)$') or '')
    if not offset or offset < -50400 or offset > 50400 or offset % 60 ~= 0 then return false end
  end
  for _, e in ipairs(info.e) do
    if type(e) ~= 'table' or not name_ok(e[1]) or not name_ok(e[3])
      or not (void_text(e[2], '^real:[%w:%-]+$') or void_text(e[2], '^shown:[%w:%-]+$'))
      or not (void_text(e[4], '^%d+$') or void_text(e[4], '^%d+%.%d+$')) then
      return false
    end
  end
  for _, s in ipairs(info.s) do
    if type(s) ~= 'table' or not name_ok(s[1]) or not void_text(s[2], '^%d+$')
      or (s[3] ~= nil and not (void_text(s[3], '^%d+$') and #s[3] <= 15)) then
      return false
    end
  end
  return true
end

-- A buffered vote's compact object (void_info_ok) given its entries (e),
-- planned again (lib/entries) on the boards' settings now: a pair whose
-- board's periods, carry or decimals, or the campaign's offset, changed
-- since the vote (its stamp differs, lib/board_stamp) is left out. Names
-- its statistics buckets (h, dy) when it does not: in the offset of its
-- stamp, the campaign's when the vote was accepted. Returns how many pairs
-- it left out. Nothing to do for a full object.
local function void_expand(ns, info, offset)
  if not info.x then return 0 end
  if not info.h then
    local names = stats_buckets(tonumber(info.t), tonumber(info.x[1][2]:match('|(%-?%d+)$')))
    info.h, info.dy = names.hour[1], names.day[1]
  end
  local e, left_out = {}, 0
  for i, x in ipairs(info.x) do
    local board = info.s[i][1]
    local b = rcall('EXISTS', ns .. 'board:' .. board) == 1 and board_settings(ns, board)
    if b and board_stamp(b, offset) == x[2] then
      local vote = { now = tonumber(info.t), pairs = { { board = board, option = x[1], weight = tonumber(info.s[i][2]) } } }
      for _, en in ipairs(planned_entries({ ns = ns, boards = { [board] = b }, offset = offset }, { vote }).order) do
        e[#e + 1] = { board, en[8], x[1], en[4] and decimal_text(en[9], en[4]) or string.format('%.0f', en[9]) }
      end
    else
      left_out = left_out + 1
    end
  end
  info.e = e
  return left_out
end

-- The remove_gen each board had when the vote `info` was cast (0: none
-- recorded, a vote of before any removal, or of a redvote that kept none).
local function void_gens(info)
  local gens = {}
  for _, s in ipairs(info.s) do gens[s[1]] = tonumber(s[3] or '0') end
  return gens
end

-- Whether `option` of board `b` (board_settings) was removed after a vote
-- cast at the board's remove_gen `gen`: a re-configured option of that
-- name is another member than the one the vote counted. `removed` caches
-- the reads of <ns>removed:B (nothing is read while no removal came since).
local function void_removed_since(ns, b, option, gen, removed)
  if b.remove_gen <= gen then return false end
  local id = b.name .. '\0' .. option
  local at = removed[id]
  if at == nil then
    local key = ns .. 'removed:' .. b.name
    local v = rcall('HGET', key, option)
    at = v and stored_int(v, 1, 999999999999999, key, option) or 0
    removed[id] = at
  end
  return at > gen
end

-- Whether `option` of `board` has imported votes (a field of
-- <ns>initial:B, campaign_import): imports may lower a shown score, so a
-- 0 left on a shown board may be theirs. `imported` caches the reads.
local function void_imported(ns, board, option, imported)
  local id = board .. '\0' .. option
  if imported[id] == nil then imported[id] = rcall('HEXISTS', ns .. 'initial:' .. board, option) == 1 end
  return imported[id]
end

-- Before the first write: what voiding the votes `infos` (checked by
-- void_info_ok) changes, merged (two votes on one member are one
-- subtraction), every key read and checked. Returns the plan void_write
-- takes.
local function void_plan(ns, infos)
  local boards, plan, order, stats, stats_order, removed, imported = {}, {}, {}, {}, {}, {}, {}
  local skipped = 0
  for _, info in ipairs(infos) do
    local gens = void_gens(info)
    for _, e in ipairs(info.e) do
      local board, which, option = e[1], e[2], e[3]
      local b = boards[board]
      if b == nil then
        b = rcall('EXISTS', ns .. 'board:' .. board) == 1 and board_settings(ns, board) or false
        boards[board] = b
      end
      local p
      if b and not void_removed_since(ns, b, option, gens[board] or 0, removed) then
        local key = ns .. 'b:' .. board .. ':' .. which
        local id = key .. '\0' .. option
        p = plan[id]
        if not p then
          local scale = which:sub(1, 6) == 'shown:' and b.decimals or 0
          local old = rcall('ZSCORE', key, option)
          p = { key = key, b = b, option = option, old = old, scale = scale, sub = 0,
            real = which:sub(1, 5) == 'real:', which = which }
          if old then
            p.units = units_of(old, scale)
            if b.sides[1] then
              p.st = order_read(ns, b, key, option)
              local expiry = tonumber(rcall('ZSCORE', ns .. 'periods:' .. board, which))
              p.expiry = expiry and expiry > 0 and expiry or nil
            end
            order[#order + 1] = p
          end
          plan[id] = p
        end
        if p.old then
          p.sub = p.sub + units_of(e[4], p.scale)
        end
      end
      if not (p and p.old) then skipped = skipped + 1 end
    end
    for _, s in ipairs(info.s) do
      for _, bucket in ipairs({ info.h, info.dy }) do
        local key = ns .. 'st:' .. s[1] .. ':' .. bucket
        local t = stats[key]
        if not t then
          local h = rcall('HMGET', key, 'votes', 'voided', 'voided_amount')
          t = { key = key, live = h[1] ~= false and h[1] ~= nil, n = 0, amount = 0 }
          stats_int(h[2], key, 'voided'); stats_int(h[3], key, 'voided_amount')
          stats[key] = t
          stats_order[#stats_order + 1] = t
        end
        t.n = t.n + 1
        t.amount = t.amount + tonumber(s[2])
      end
    end
  end
  local first = false
  for _, p in ipairs(order) do
    first = first or p.b.first
    -- a shown score brought to 0: the option's imports may have made it
    if not p.real and p.units == p.sub then
      p.imported = void_imported(ns, p.b.name, p.option, imported)
    end
  end
  if first then stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value') end
  return { order = order, stats = stats_order, first = first, skipped = skipped }
end

-- The writes of a plan from void_plan. Returns how many board entries
-- changed.
local function void_write(ns, plan)
  local seq = 0
  local n = #plan.order
  if plan.first then seq = rcall('INCRBY', ns .. 'seq', n) - n end
  for i, p in ipairs(plan.order) do
    local left = p.units - p.sub
    -- gone without the vote: no count left on a real board; on a shown
    -- one nothing left that an import may have made (see above)
    if (p.real and left <= 0) or (not p.real and left == 0 and not p.imported) then
      order_remove(ns, p.b, p.key, p.option)
      -- a board emptied is gone: unlisted, as option removal does (a
      -- board that exists stays listed)
      if rcall('EXISTS', p.key) == 0 then rcall('ZREM', ns .. 'periods:' .. p.b.name, p.which) end
    else
      local text = p.real and string.format('%.0f', left) or decimal_text(left, p.scale)
      rcall('ZADD', p.key, text, p.option)
      if p.st then order_write(ns, p.b, p.key, p.option, p.old, text, p.st, seq + i, p.expiry) end
    end
  end
  for _, t in ipairs(plan.stats) do
    if t.live then
      rcall('HINCRBY', t.key, 'voided', t.n)
      rcall('HINCRBY', t.key, 'voided_amount', t.amount)
    end
  end
  return n
end
