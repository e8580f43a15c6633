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
    ARGV[1]  board
    ARGV[2]  time    "" for the server's clock; Unix seconds on the test path
    ARGV[3..] option, votes, option, votes, ...: 1..500 pairs; votes a
             non-negative decimal with at most the board's decimals

  Writes: ZADD on those shown boards (and their side keys: the "first"
    sequence, lib/order's dense and first order), HSET
    <ns>initial:B, <ns>periods:B entries (with the boards' expiry, as a vote).

  Output: { options whose imported amount changed, options unchanged }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION,
    REDVOTE_OUT_OF_RANGE, REDVOTE_INVALID_CONFIG.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/pair_args"
--- @include "lib/offset"
--- @include "lib/clock"
--- @include "lib/board"
--- @include "lib/board_key"
--- @include "lib/option"
--- @include "lib/board_write"
--- @include "lib/exact"
--- @include "lib/order"

local function main()
  local root, ns = campaign_key('campaign_import')
  pair_argc('campaign_import', 2, 1, 500, 'board, time, then 1..500 option, votes pairs')
  local offset = campaign_offset(root)
  local now = clock(ARGV[2])
  local b = board_settings(ns, ARGV[1])
  local decimals, ties = b.decimals, b.ties
  local limit = exact_limit(decimals)
  -- keys[j] and touched[j] = { its index member, its expiry or false }
  local keys, touched = {}, {}
  for _, p in ipairs(b.periods) do
    local key, name = board_key(ns, b, 'shown', p, now, offset)
    local _, _, finish = period(p, now, offset)
    keys[#keys + 1] = key
    touched[#touched + 1] = { 'shown:' .. name, expire_at(b, p, finish) or false }
  end
  local initial = ns .. 'initial:' .. b.name
  local changes, unchanged, seen = {}, 0, {}
  for i = 3, #ARGV, 2 do
    local option, votes = ARGV[i], ARGV[i + 1]
    check_name(option)
    check_option(ns, b.name, option)
    if seen[option] then fail('USAGE', 'option ' .. option .. ' is imported twice in one call') end
    seen[option] = true
    local int, frac = votes:match('^(%d+)%.?(%d*)$')
    if not int or #votes > 20 or #frac > decimals or (votes:find('%.') and #frac == 0) then
      fail('INVALID_NUMBER', option .. ': votes must be a non-negative decimal with at most ' .. decimals .. ' decimals, got "' .. votes:sub(1, 80) .. '"')
    end
    local units = tonumber(int .. frac .. string.rep('0', decimals - #frac))
    local delta = units - units_of(rcall('HGET', initial, option), decimals)
    if delta == 0 then
      unchanged = unchanged + 1
    else
      local old = {}
      for j, k in ipairs(keys) do
        old[j] = rcall('ZSCORE', k, option)
        if math.abs(units_of(old[j], decimals) + delta) >= limit or units >= limit then
          fail('OUT_OF_RANGE', k .. ' ' .. option .. ' would leave the exact range')
        end
      end
      changes[#changes + 1] = { option, units, delta, old }
    end
  end

  -- Every key written is read first: one of the wrong type, or a sequence
  -- counter that is not one, is refused before the first write.
  stored_int(rcall('GET', ns .. 'seq') or '0', 0, 999999999999999, ns .. 'seq', 'value')
  local fresh
  if #changes > 0 then fresh = new_periods(ns, b.name, touched) end
  for _, c in ipairs(changes) do
    c[5], c[6] = {}, {}
    for j, k in ipairs(keys) do c[5][j], c[6][j] = order_read(ns, ties, k, c[1]) end
  end

  -- validated: the writes start here
  local seq = rcall('INCRBY', ns .. 'seq', #changes) - #changes
  for n, c in ipairs(changes) do
    local option, units, delta, old, old_seq, new_side = c[1], c[2], c[3], c[4], c[5], c[6]
    rcall('HSET', initial, option, decimal_text(units, decimals))
    for j, k in ipairs(keys) do
      local new = decimal_text(units_of(old[j], decimals) + delta, decimals)
      rcall('ZADD', k, new, option)
      -- (a side key new for the first change is not for the next ones)
      order_write(ns, ties, k, option, old[j], new, old_seq[j], seq + n, n == 1 and new_side[j], touched[j][2])
    end
  end
  if #changes > 0 then track_periods(ns, b.name, fresh) end
  return { #changes, unchanged }
end

--- @include "lib/epilogue"
