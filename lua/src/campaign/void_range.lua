#!lua
--[[
  campaign_void_range: an admin voids the votes of one user or one channel
  logged in a time range, in bounded steps: each call reads at most `count`
  entries of the capped vote log <ns>log (campaigns with vote_log > 0;
  see campaign_configure) from the cursor on, voids those of the user or
  channel, and answers the cursor to call again with ("0": done). Voiding
  is campaign_void's (lib/void): what each vote added is subtracted from
  every period board it wrote, atomically per call, and counted as voided
  in the statistics. A voided vote's entry leaves the log (XDEL), so no
  vote is voided twice: a vote voided by its id (campaign_void) left it
  then, and one voided here marks its vote-id record voided when the
  record still lives. The range is the time each vote was logged, the
  entry's id (the server's clock, milliseconds): a vote's own time but on
  the test/import path (an explicit time). Rate limits are not given back.

  Input:
    KEYS[1]  campaign root "<ns>campaign"; every other key derives from <ns>
    ARGV[1]  by  <enum(user|channel)>  user or channel
    ARGV[2]  value  <text 1..256>  the user (1..256 bytes) or the channel (a
             name)
    ARGV[3]  from  <integer 0..253402300799>  Unix seconds: entries logged from
             then on
    ARGV[4]  to  <integer 0..253402300799>  Unix seconds, after from: entries
             logged before then
    ARGV[5]  cursor  <cursor>  "0" to start, then the cursor the last call
             answered
    ARGV[6]  count  <integer 1..1000>  entries read a call, 1..1000; bounded
             work: at most 100 a call (each voids a vote), more is taken as 100

  Keys written: as campaign_void, for each vote voided; <ns>log (XDEL).

  Output: { votes voided, entries read that were not the user's or
    channel's, the next cursor ("0": the range is done) }.

  Keys: <ns>board:B, <ns>periods:B, <ns>b:B:KIND:P, <ns>f:B:KIND:P,
    <ns>o:B:KIND:P, <ns>d:B:KIND:P, <ns>seq, <ns>vid:ID, <ns>st:B:P,
    <ns>sp:P, <ns>sn:P, <ns>log, <ns>removed:B, <ns>initial:B

  Reply: {voided: integer, skipped: integer, next: string}
  Idempotent: yes

  Errors: REDVOTE_USAGE, REDVOTE_INVALID_USER, REDVOTE_INVALID_NAME,
    REDVOTE_INVALID_NUMBER, REDVOTE_UNKNOWN_CAMPAIGN, REDVOTE_INVALID_CONFIG,
    REDVOTE_LAYOUT_VERSION, REDVOTE_UNFOLDED,
    REDVOTE_UNKNOWN_BOARD.
]]
--- @include "lib/prologue"
--- @include "lib/campaign"
--- @include "lib/integer_arg"
--- @include "lib/user"
--- @include "lib/name_arg"
--- @include "lib/offset"
--- @include "lib/void"
--- @include "lib/fold_all"

local function main()
  local root, ns = campaign_key('campaign_void_range')
  argc('campaign_void_range', 6, 6, 'by (user or channel), value, from, to, cursor, count')
  local by, value, cursor = ARGV[1], ARGV[2], ARGV[5]
  local field
  if by == 'user' then
    check_user(value)
    field = 'u'
  elseif by == 'channel' then
    check_name(value)
    field = 'c'
  else
    fail('USAGE', 'campaign_void_range voids by user or channel, got "' .. by:sub(1, 40) .. '"')
  end
  local from = integer_arg(ARGV[3], 'from', 0, 253402300799)
  local to = integer_arg(ARGV[4], 'to', 0, 253402300799)
  if to <= from then fail('INVALID_NUMBER', 'to must be after from') end
  if cursor ~= '0' and not (#cursor <= 41 and cursor:find('^%d+%-%d+$')) then
    fail('INVALID_NUMBER', 'cursor must be "0" or the cursor a call answered, got "' .. cursor:sub(1, 80) .. '"')
  end
  local count = math.min(integer_arg(ARGV[6], 'count', 1, 1000), 100) -- bounded work
  local offset = campaign_offset(root)
  local log = ns .. 'log'
  local t = rcall('TYPE', log).ok
  if t == 'none' then return { 0, 0, '0' } end
  if t ~= 'stream' then fail('INVALID_CONFIG', log .. ' is not a stream') end
  local start = cursor == '0' and string.format('%.0f', from * 1000) or '(' .. cursor
  local entries = rcall('XRANGE', log, start, string.format('%.0f', to * 1000 - 1), 'COUNT', count)

  local infos, ids, records, others = {}, {}, {}, 0
  for _, entry in ipairs(entries) do
    local f = {}
    local fields = entry[2]
    for j = 1, #fields, 2 do f[fields[j]] = fields[j + 1] end
    if f[field] ~= value then
      others = others + 1
    else
      local ok, info = pcall(cjson.decode, f.a or '')
      if not ok or not void_info_ok(info) then fail('INVALID_CONFIG', log .. ' entry ' .. entry[1] .. ' is not a vote') end
      info.l = entry[1]
      void_expand(ns, info, offset)
      local voided = false
      local vid = f.i
      if vid and vid ~= '' and #vid <= 128 and not vid:find('%c') then
        -- the vote's id record, if it still lives and is this vote's (an id
        -- may be used again once its record expired)
        local key = ns .. 'vid:' .. vid
        local stored = rcall('GET', key)
        local rok, record = pcall(cjson.decode, stored or '')
        if rok and type(record) == 'table' and type(record[3]) == 'table' and record[3].l == entry[1] then
          voided = record[3].v ~= nil
          if not voided then records[#records + 1] = { key, record } end
        end
      end
      ids[#ids + 1] = entry[1]
      if not voided then infos[#infos + 1] = info end
    end
  end
  local plan = void_plan(ns, infos)
  -- a buffered campaign's votes on the boards first (lib/fold): one still
  -- buffered is then voided as a folded one. Planned (and so every stored
  -- value checked) before the fold's writes, and again after them.
  if fold_all(root, ns) then plan = void_plan(ns, infos) end

  -- validated: the writes start here
  local now = rcall('TIME')[1]
  if #infos > 0 then void_write(ns, plan) end
  for _, r in ipairs(records) do
    r[2][3].v = now
    rcall('SET', r[1], cjson.encode(r[2]), 'KEEPTTL')
  end
  for i = 1, #ids, 500 do rcall('XDEL', log, unpack(ids, i, math.min(i + 499, #ids))) end
  local next_cursor = #entries == count and entries[#entries][1] or '0'
  return { #infos, others, next_cursor }
end

--- @include "lib/epilogue"
