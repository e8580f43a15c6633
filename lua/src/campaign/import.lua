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

  Writes: ZADD on those shown boards (and their "first" side keys), HSET
    <ns>initial:B, <ns>periods:B entries (with the boards' expiry, as a vote).

  Output: { options whose imported amount changed, options unchanged }

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION,
    REDVOTE_OUT_OF_RANGE.
]]
--- @include "lib/prologue"

--- @include "lib/names"

--- @include "lib/periods"

--- @include "lib/campaign"

--- @include "lib/exact"

local function main()
  local root = KEYS[1]
  if #KEYS ~= 1 or root:sub(-8) ~= 'campaign' then
    fail('USAGE', 'campaign_import takes 1 key, the campaign root "<ns>campaign"')
  end
  if #ARGV < 4 or #ARGV % 2 ~= 0 or #ARGV > 1002 then
    fail('USAGE', 'campaign_import takes board, time, then 1..500 option, votes pairs')
  end
  local ns = root:sub(1, -9)
  local offset = campaign_offset(root)
  local now = clock(ARGV[2])
  local b = board_settings(ns, ARGV[1])
  local scale = 10 ^ b.decimals
  local first = b.ties == 'first'
  local keys, touched = {}, {}
  for _, p in ipairs(b.periods) do
    local key, fkey, name = board_key(ns, b, 'shown', p, now, offset)
    local _, _, finish = period(p, now, offset)
    local keep = b.keep[p] or 0
    keys[#keys + 1] = { key, fkey }
    touched[#touched + 1] = { 'shown:' .. name, (finish and keep > 0) and (finish + keep) or false }
  end
  local initial = ns .. 'initial:' .. b.name
  local changes, unchanged, seen = {}, 0, {}
  for i = 3, #ARGV, 2 do
    local option, votes = ARGV[i], ARGV[i + 1]
    check_name(option)
    if rcall('HEXISTS', ns .. 'weights:' .. b.name, option) == 0 then
      fail('UNKNOWN_OPTION', ns .. 'weights:' .. b.name .. ' has no option ' .. option)
    end
    if seen[option] then fail('USAGE', 'option ' .. option .. ' is imported twice in one call') end
    seen[option] = true
    local int, frac = votes:match('^(%d+)%.?(%d*)$')
    if not int or #votes > 20 or #frac > b.decimals or (votes:find('%.') and #frac == 0) then
      fail('INVALID_NUMBER', option .. ': votes must be a non-negative decimal with at most ' .. b.decimals .. ' decimals, got "' .. votes:sub(1, 80) .. '"')
    end
    local units = tonumber(int .. frac .. string.rep('0', b.decimals - #frac))
    local before = math.floor(tonumber(rcall('HGET', initial, option) or '0') * scale + 0.5)
    local delta = units - before
    if delta == 0 then
      unchanged = unchanged + 1
    else
      for _, k in ipairs(keys) do
        local current = math.floor(tonumber(rcall('ZSCORE', k[1], option) or '0') * scale + 0.5)
        if math.abs(current + delta) >= exact_limit(b.decimals) or units >= exact_limit(b.decimals) then
          fail('OUT_OF_RANGE', k[1] .. ' ' .. option .. ' would leave the exact range')
        end
      end
      changes[#changes + 1] = { option, units, delta }
    end
  end

  -- validated: the writes start here
  local seq = rcall('INCRBY', ns .. 'seq', #changes) - #changes
  for n, c in ipairs(changes) do
    local option, units, delta = c[1], c[2], c[3]
    rcall('HSET', initial, option, string.format('%.' .. b.decimals .. 'f', units / scale))
    for _, k in ipairs(keys) do
      local current = math.floor(tonumber(rcall('ZSCORE', k[1], option) or '0') * scale + 0.5)
      rcall('ZADD', k[1], string.format('%.' .. b.decimals .. 'f', (current + delta) / scale), option)
      if first then rcall('ZADD', k[2], seq + n, option) end
    end
  end
  if #changes > 0 then track_periods(ns, b.name, touched) end
  return { #changes, unchanged }
end

--- @include "lib/epilogue"
