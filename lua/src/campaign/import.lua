#!lua
--[[
  campaign_import: set the starting (imported) shown votes of options of one
  board. Idempotent: the imported amount of each option is remembered in
  <ns>initial:B, and a run adds only the difference to what was imported
  before, so running an import twice gives the same state.

  The difference goes to the board's shown "total" board (when kept) and to
  the shown board of every other period it keeps that holds `time` (the
  current ones): imported votes then rank from the start; real boards are
  never touched.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  time  <time, "" = server clock>  "" for the server's clock; Unix
             seconds on the test path, at most 9999-12-31T23:59:59 in the
             campaign's UTC offset
    ARGV[3..]  pairs  <name/decimal, repeat 1..500>  option, votes, option,
             votes, ...: 1..500 pairs; votes a non-negative decimal with at
             most the board's decimals

  Writes: ZADD on those shown boards (and their side keys: the "first"
    sequence, lib/order's dense and first order), HSET
    <ns>initial:B, <ns>periods:B entries (with the boards' expiry, as a vote).
    A board written that has a retention gets its expiry whenever it had
    none (one that had expired is made anew with it). An import into a
    period whose board is past its retention (its expiry, by the server's
    clock, has come) is refused (REDVOTE_INVALID_PERIOD): that board is
    gone, and writing it would make it anew.

  Reads, checked before the first write: <ns>initial:B's amounts (exact
    decimals as written, else REDVOTE_INVALID_CONFIG), the boards' scores,
    <ns>seq, <ns>periods:B.

  Bounded work: one call does at most 600 units of work (lib/board's
  CALL_WORK), a unit being about one command it sends: 3 a pair (its
  option, its amount before, its amount after) plus, for each shown board it
  writes, 2 (read and write) and the side keys' (lib/order: 4 a dense or
  first rule kept, 2 more for "first"'s sequence numbers). It takes the pairs in order while
  they fit (always the first one) and answers how many it left: send those
  last `rest` pairs again (the import is idempotent, so a call sent twice
  changes nothing more). Measured on 1M-option boards (docs/benchmark.md,
  Bounded work): about 2.5 microseconds a unit, so a call stays near 1.5-2
  ms whatever the board's periods and tie rule: 110-120 pairs a call on a
  board that keeps one period with competition ties, 50-54 with first
  ties, 12-13 on a first board keeping five periods (the options sent are checked
  in one read: a unit for ten of them). Every pair's option name, amount
  and option are checked in every call (INVALID_NAME, INVALID_NUMBER,
  USAGE for an option twice, UNKNOWN_OPTION), so an import sent whole is
  refused before its first call writes; the exact range (OUT_OF_RANGE)
  only for the pairs the call takes.

  Output: { options whose imported amount changed, options unchanged,
    pairs left for the next call (0: all done) }

  Keys: <ns>board:B, <ns>weights:B, <ns>periods:B, <ns>b:B:KIND:P,
    <ns>f:B:KIND:P, <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>initial:B, <ns>seq

  Reply: {changed: integer, unchanged: integer, rest: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION,
    REDVOTE_INVALID_PERIOD, REDVOTE_OUT_OF_RANGE, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/pair_args"
--- @include "lib/offset"
--- @include "lib/clock"
--- @include "lib/last_second"
--- @include "lib/board"
--- @include "lib/board_key"
--- @include "lib/board_write"
--- @include "lib/exact"
--- @include "lib/order"
--- @include "lib/retention"

-- An amount stored in <ns>initial:B (nil: none, 0) in units of the board's
-- `decimals`: only a decimal as decimal_text writes it (digits, optionally
-- a point and digits, at most 16 digits in all) is one; anything else
-- (nan, inf, 1e5, -3) is refused as corrupt, as stored_int refuses it.
local function stored_units(v, decimals, key, field)
  if not v then return 0 end
  local int, frac = v:match('^(%d+)%.?(%d*)$')
  if not int or #int + #frac > 16 or (#frac == 0 and v:find('%.')) then stored_int(v, 0, 0, key, field) end
  return units_of(v, decimals)
end

local function main()
  local root, ns = campaign_key('campaign_import')
  pair_argc('campaign_import', 2, 1, 500, 'board, time, then 1..500 option, votes pairs')
  local offset = campaign_offset(root)
  local now = clock(ARGV[2])
  check_last_second(now, offset, ARGV[2])
  local b = board_settings(ns, ARGV[1])
  local decimals = b.decimals
  local limit = exact_limit(decimals)
  -- keys[j] and touched[j] = { its index member, its expiry or false }
  local keys, touched = {}, {}
  local server_now
  for _, p in ipairs(b.periods) do
    local key, name = board_key(ns, b, 'shown', p, now, offset)
    local _, _, finish = period(p, now, offset)
    local expiry = expire_at(b, p, finish)
    if expiry then
      server_now = server_now or tonumber(rcall('TIME')[1])
      refuse_expired(b, 'shown:' .. name, expiry, server_now)
    end
    keys[#keys + 1] = key
    touched[#touched + 1] = { 'shown:' .. name, expiry or false }
  end
  local initial = ns .. 'initial:' .. b.name
  -- The work a pair costs (see Bounded work), and how many pairs fit.
  local per_pair = 3 + #keys * entry_work(b)
  local changes, unchanged, seen, units_of_pair = {}, 0, {}, {}
  for i = 3, #ARGV, 2 do
    local option, votes = ARGV[i], ARGV[i + 1]
    check_name(option)
    if seen[option] then fail('USAGE', 'option "' .. option .. '" is imported twice in one call') end
    seen[option] = true
    local int, frac = votes:match('^(%d+)%.?(%d*)$')
    if not int or #votes > 20 or #frac > decimals or (votes:find('%.') and #frac == 0) then
      fail('INVALID_NUMBER', 'option "' .. option .. '": votes must be a non-negative decimal with at most ' .. decimals .. ' decimals, got "' .. votes:sub(1, 80) .. '"')
    end
    units_of_pair[option] = tonumber(int .. frac .. string.rep('0', decimals - #frac))
  end
  local pairs_given = (#ARGV - 2) / 2
  -- Every option sent is one of the board's, in one read (a unit of work
  -- for ten options): an unknown one refuses the call, so an import sent
  -- whole (the CLI's batches, the service, the packages) is refused before
  -- its first call writes.
  local weights, sent = ns .. 'weights:' .. b.name, {}
  for i = 3, #ARGV, 2 do sent[#sent + 1] = ARGV[i] end
  local known = rcall('HMGET', weights, unpack(sent))
  for i = 1, #sent do
    if not known[i] then fail('UNKNOWN_OPTION', 'board "' .. b.name .. '" has no option "' .. sent[i] .. '"') end
  end
  local take = math.max(1, math.min(math.floor((CALL_WORK - math.ceil(pairs_given / 10)) / per_pair), pairs_given))
  for i = 3, 2 * take + 1, 2 do
    local option = ARGV[i]
    local units = units_of_pair[option]
    local delta = units - stored_units(rcall('HGET', initial, option), decimals, initial, option)
    if delta == 0 then
      unchanged = unchanged + 1
    else
      local old = {}
      for j, k in ipairs(keys) do
        old[j] = rcall('ZSCORE', k, option)
        if math.abs(units_of(old[j], decimals) + delta) >= limit or units >= limit then
          fail('OUT_OF_RANGE', 'option "' .. option .. '" of board "' .. b.name .. '" would leave the exact range ('
            .. touched[j][1] .. ')')
        end
      end
      changes[#changes + 1] = { option, units, delta, old }
    end
  end

  -- Every key written is read first: one of the wrong type, or a sequence
  -- counter that is not one, is refused before the first write.
  stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value')
  local fresh, listed
  if #changes > 0 then fresh, listed = new_periods(ns, b.name, touched) end
  for _, c in ipairs(changes) do
    c[5] = {}
    for j, k in ipairs(keys) do c[5][j] = order_read(ns, b, k, c[1]) end
  end

  -- validated: the writes start here
  local seq = rcall('INCRBY', ns .. 'seq', #changes) - #changes
  for n, c in ipairs(changes) do
    local option, units, delta, old, st = c[1], c[2], c[3], c[4], c[5]
    rcall('HSET', initial, option, decimal_text(units, decimals))
    for j, k in ipairs(keys) do
      local new = decimal_text(units_of(old[j], decimals) + delta, decimals)
      rcall('ZADD', k, new, option)
      -- (a side key new for the first change is not for the next ones)
      order_write(ns, b, k, option, old[j], new, st[j], seq + n, touched[j][2], n == 1)
    end
  end
  -- (a board the index knew but that had expired is made anew by ZADD:
  -- it gets its expiry too, one that has it keeps it)
  if #changes > 0 then track_periods(ns, b.name, fresh, listed) end
  return { #changes, unchanged, pairs_given - take }
end

--- @include "lib/epilogue"
