#!lua
--[[
  campaign_void: an admin voids the vote applied with vote id ID, while its
  record <ns>vid:ID lives (the campaign's vote_id_ttl): what the vote added
  is subtracted from every period board it wrote (real, shown, the next
  period's carry), atomically, once, the tie rules' side keys kept (a
  member brought to 0 leaves the board), and its pairs count as voided in
  the statistics of the vote's hour and day (lib/void, lib/stats). The
  record is marked voided (it keeps its expiry): a second call answers
  "already_voided" and changes nothing; a resend of the vote with that id
  still answers its recorded reply as a replay and counts nothing.
  Participants (HyperLogLogs) and rate limits are not given back. Boards,
  members and statistics gone since (expired, removed) are skipped, and
  so is an option removed since the vote, pending or configured again
  (the removal's generation, <ns>removed:B, is above the vote's). A
  score goes back to what it would be without the vote: a shown score an
  import lowered below 0 stays there (-60 made -59 by the vote is -60
  again); an entry brought to 0 leaves its board, but a shown one of an
  option with imported votes, which may hold that 0 (lib/void). A
  buffered campaign's vote (docs/hot-campaigns.md) is folded first, and
  its entries are planned again from its record (lib/void's void_expand):
  a pair whose board's periods, carry or decimals, or the campaign's
  offset, changed since the vote is skipped (counted as one).

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  id  <vote_id>  the vote id, 1..128 bytes without control
             characters

  Keys written: the period boards of the vote's entries and their side keys
    (<ns>f:, <ns>o:, <ns>d:), <ns>seq (ties "first"), <ns>st:B:P (voided,
    voided_amount), <ns>vid:ID (SET KEEPTTL: marked voided), <ns>log (XDEL
    of the vote's entry, when it was logged).

  Output: { "voided" or "already_voided", the time it was voided (Unix
    seconds, server clock), board entries changed, entries skipped (their
    board or member gone; a buffered vote's pair whose board changed
    since) }; an "already_voided" reply has 0, 0.

  Keys: <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>seq, <ns>vid:ID, <ns>st:B:P,
    <ns>sp:P, <ns>sn:P, <ns>log, <ns>removed:B, <ns>initial:B

  Reply: {status: enum(voided|already_voided), at: integer, changed:
    integer, skipped: integer}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_VOTE_ID, REDVOTE_UNKNOWN_CAMPAIGN,
    REDVOTE_UNKNOWN_VOTE, REDVOTE_NOT_VOIDABLE, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION, REDVOTE_UNFOLDED,
    REDVOTE_INVALID_NAME, REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/offset"
--- @include "lib/void"
--- @include "lib/fold_all"

local function main()
  local root, ns = campaign_key('campaign_void')
  argc('campaign_void', 1, 1, 'the vote id')
  local id = ARGV[1]
  if #id == 0 or #id > 128 or id:find('%c') then
    fail('INVALID_VOTE_ID', 'a vote id is 1..128 bytes without control characters')
  end
  local offset = campaign_offset(root)
  local key = ns .. 'vid:' .. id
  local stored = rcall('GET', key)
  if not stored then
    fail('UNKNOWN_VOTE', 'no vote with id ' .. id:sub(1, 80) .. ' is recorded (never applied, or its record expired after the campaign\'s vote_id_ttl)')
  end
  local ok, record = pcall(cjson.decode, stored)
  if not ok or type(record) ~= 'table' or type(record[1]) ~= 'string'
    or (type(record[2]) ~= 'table' and type(record[2]) ~= 'string') then
    fail('INVALID_CONFIG', key .. ' is not a vote record')
  end
  local info = record[3]
  if info == nil then
    fail('NOT_VOIDABLE', 'vote id ' .. id:sub(1, 80) .. ' was recorded by a redvote that kept no amounts (0.5 or before): it cannot be voided')
  end
  if not void_info_ok(info) then fail('INVALID_CONFIG', key .. ' is not a vote record') end
  if info.v then
    if not void_text(info.v, '^%d+$') then fail('INVALID_CONFIG', key .. ' is not a vote record') end
    return { 'already_voided', tonumber(info.v), 0, 0 }
  end
  local log = ns .. 'log'
  if info.l then
    local t = rcall('TYPE', log).ok
    if t ~= 'none' and t ~= 'stream' then fail('INVALID_CONFIG', log .. ' is not a stream') end
  end
  local left_out = void_expand(ns, info, offset)
  local plan = void_plan(ns, { info })
  -- a buffered campaign's votes on the boards first (lib/fold): one still
  -- buffered is then voided as a folded one. Planned (and so every stored
  -- value checked) before the fold's writes, and again after them.
  if fold_all(root, ns) then plan = void_plan(ns, { info }) end

  -- validated: the writes start here
  local now = rcall('TIME')[1]
  local changed = void_write(ns, plan)
  info.v = now
  if info.x then info.e = nil end
  rcall('SET', key, cjson.encode(record), 'KEEPTTL')
  if info.l then rcall('XDEL', log, info.l) end
  return { 'voided', tonumber(now), changed, plan.skipped + left_out }
end

--- @include "lib/epilogue"
