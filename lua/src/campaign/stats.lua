#!lua flags=no-writes
--[[
  campaign_stats: a board's vote statistics over a time range, one entry a
  bucket (hour or day, in the campaign's offset), empty buckets included
  (zeros): votes (pairs voted on the board), their weighted amount, those
  voided since, the campaign's participants of the bucket, and the votes
  by channel and by device (docs/statistics.md). Read-only (flagged
  no-writes: it runs on a replica); O(buckets x fields).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2]  granularity  <enum(hour|day)>  hour or day
    ARGV[3]  from  <integer 0..253402300799>  Unix seconds: the first bucket is
             the one holding it
    ARGV[4]  to  <integer 0..253402300799>  Unix seconds, after from
             (exclusive): the buckets that start before it; at most 336 hours
             (two weeks: about 3 ms) or 366 days a call

  Keys read: <ns>board:B, <ns>st:B:P (lib/stats), <ns>sn:P.

  Output: one entry a bucket, in time order: { P (hour:2026-03-17T12,
    day:2026-03-17), start (Unix seconds), votes, amount, voided,
    voided_amount, participants, { channel, votes, ... }, { device, votes,
    ... } }; a channel or device "*" counts those past the first 32 of the
    bucket; votes without a channel (device) are in neither list.

  Keys: <ns>board:B, <ns>st:B:P, <ns>sn:P

  Reply: list({bucket: string, start: integer, votes: integer, amount:
    integer, voided: integer, voided_amount: integer, participants: integer,
    channels: pairs(string, integer), devices: pairs(string, integer)})
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_INVALID_NUMBER,
    REDVOTE_INVALID_PERIOD, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_UNKNOWN_BOARD,
    REDVOTE_INVALID_CONFIG, REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/integer_arg"
--- @include "lib/offset"
--- @include "lib/board"
--- @include "lib/stats"

-- The most buckets one call reads: two weeks of hours, a year of days,
-- which keeps a call within the 5 ms bound (a month of hours does not).
local STATS_SPAN = { hour = { 3600, 336 }, day = { 86400, 366 } }

local function main()
  local root, ns = campaign_key('campaign_stats')
  argc('campaign_stats', 4, 4, 'board, granularity (hour or day), from, to')
  check_name(ARGV[1])
  local kind = ARGV[2]
  local span = STATS_SPAN[kind]
  if not span then fail('INVALID_PERIOD', 'granularity must be hour or day, got "' .. kind:sub(1, 40) .. '"') end
  local from = integer_arg(ARGV[3], 'from', 0, 253402300799)
  local to = integer_arg(ARGV[4], 'to', 0, 253402300799)
  if to <= from then fail('INVALID_NUMBER', 'to must be after from') end
  local offset = campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  local _, first = period(kind, from, offset)
  local n = math.ceil((to - first) / span[1])
  if n > span[2] then
    fail('INVALID_NUMBER', 'at most ' .. span[2] .. ' ' .. kind .. ' buckets a call, the range holds ' .. n)
  end
  -- The buckets' names, then their participant counts in one MGET (a
  -- call each would cost more than the rest of a bucket), then each
  -- bucket's hash; a field's kind by its first bytes, without a
  -- substring made (up to 336 buckets a call).
  local names, counts = {}, {}
  for i = 1, n do
    local name = period(kind, first + (i - 1) * span[1], offset)
    names[i], counts[i] = name, ns .. 'sn:' .. name
  end
  local people = n > 0 and rcall('MGET', unpack(counts)) or {}
  local prefix = ns .. 'st:' .. b.name .. ':'
  local reply = {}
  for i = 1, n do
    local name = names[i]
    local key = prefix .. name
    local h = rcall('HGETALL', key)
    local votes, amount, voided, voided_amount = 0, 0, 0, 0
    local channels, devices = {}, {}
    for j = 1, #h, 2 do
      local field = h[j]
      local value = stats_int(h[j + 1], key, field)
      local c = field:byte(1)
      if c == 99 and field:find('ch:', 1, true) == 1 then -- "ch:"
        channels[#channels + 1] = field:sub(4); channels[#channels + 1] = value
      elseif c == 100 and field:find('dev:', 1, true) == 1 then -- "dev:"
        devices[#devices + 1] = field:sub(5); devices[#devices + 1] = value
      elseif field == 'votes' then
        votes = value
      elseif field == 'amount' then
        amount = value
      elseif field == 'voided' then
        voided = value
      elseif field == 'voided_amount' then
        voided_amount = value
      end
    end
    reply[i] = { name, first + (i - 1) * span[1], votes, amount, voided, voided_amount,
      stats_int(people[i], counts[i], 'value'), channels, devices }
  end
  return reply
end

--- @include "lib/epilogue"
