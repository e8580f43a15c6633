#!lua
--[[
  campaign_participants: unique participants (HyperLogLog PFCOUNT, about
  0.81% standard error) of options of one board and of the whole campaign.
  Reads only, but is not flagged no-writes: Redis counts PFCOUNT as a write
  (it caches the cardinality inside the HyperLogLog).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  board  <name>
    ARGV[2..]  options  <name, repeat 0..100>  (0..100)

  Output: { campaign participants, { option, participants }, ... }

  Keys: <ns>board:B, <ns>weights:B, <ns>hll:B:O, <ns>hll

  Reply: {campaign: integer, {option: string, participants: integer}...}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_BOARD, REDVOTE_UNKNOWN_OPTION, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/offset"
--- @include "lib/board"
--- @include "lib/option"

local function main()
  local root, ns = campaign_key('campaign_participants')
  argc('campaign_participants', 1, 101, 'board, then 0..100 options')
  campaign_offset(root)
  local b = board_settings(ns, ARGV[1])
  for i = 2, #ARGV do
    check_name(ARGV[i])
    check_option(ns, b.name, ARGV[i])
  end
  -- PFCOUNT may write (it caches the count inside the HLL): every
  -- HyperLogLog is read first, so that a key of the wrong type or a string
  -- that is not one is refused before the first PFCOUNT.
  local hlls = { ns .. 'hll' }
  for i = 2, #ARGV do hlls[i] = ns .. 'hll:' .. b.name .. ':' .. ARGV[i] end
  for _, key in ipairs(hlls) do
    local magic = rcall('GETRANGE', key, '0', '3')
    if magic ~= '' and magic ~= 'HYLL' then fail('INVALID_CONFIG', key .. ' is not a HyperLogLog') end
  end

  -- validated: PFCOUNT may write
  local reply = { rcall('PFCOUNT', hlls[1]) }
  for i = 2, #ARGV do
    reply[#reply + 1] = { ARGV[i], rcall('PFCOUNT', hlls[i]) }
  end
  return reply
end

--- @include "lib/epilogue"
