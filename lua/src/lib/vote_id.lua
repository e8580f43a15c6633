--- @include "lib/prologue"
-- vote_id: idempotency keys of campaign votes. A vote with an id is recorded
-- at <ns>vid:ID, in the same call as its writes, as the JSON text
-- [request, reply, added]: request is itself JSON text, the list of every ARGV of
-- the call but the id (ARGV[6]), the time argument as sent ("" for the
-- server's clock, so a retry matches whenever it is sent); reply is the
-- vote's reply, or for a buffered vote its `folded` (text: each pair's
-- entry is { board, option, {}, "", folded }, the pairs the request's, so
-- the same call's); added is what the vote added (lib/void's object, which
-- campaign_void takes back, marked there once voided; records of redvote
-- 0.5 and before have none). Needs rcall and fail (lib/prologue).

-- The id's record. The caller passes a non-empty `id` only (campaign_vote
-- reads "" as "no id" and never looks it up; the driver refuses an empty
-- id before sending). Returns the recorded reply, each entry marked
-- "replay" as its fourth element, when `id` was applied with the same
-- arguments (the caller answers it and writes nothing: the record keeps
-- its expiry); otherwise nil and the request to record. Refuses with
-- REDVOTE_INVALID_VOTE_ID an id longer than 128 bytes or holding control
-- characters (before any read), REDVOTE_VOTE_ID_REUSED an id recorded with
-- other arguments, REDVOTE_INVALID_CONFIG a record that is not such JSON
-- (and, through lib/epilogue, a key of another type).
local function vote_id_lookup(ns, id)
  if #id > 128 or id:find('%c') then
    fail('INVALID_VOTE_ID', 'a vote id is 1..128 bytes without control characters')
  end
  local args = {}
  for i = 1, #ARGV do
    if i ~= 6 then args[#args + 1] = ARGV[i] end
  end
  local request = cjson.encode(args)
  local key = ns .. 'vid:' .. id
  local stored = rcall('GET', key)
  if not stored then return nil, request end
  local ok, record = pcall(cjson.decode, stored)
  if not ok or type(record) ~= 'table' or type(record[1]) ~= 'string'
    or not (type(record[2]) == 'table' or (type(record[2]) == 'string' and record[2]:find('^%d+$'))) then
    fail('INVALID_CONFIG', key .. ' is not a vote record')
  end
  if record[1] ~= request then
    fail('VOTE_ID_REUSED', 'vote id ' .. id .. ' was applied to another vote (user, pairs or context differ)')
  end
  if type(record[2]) == 'string' then
    local entries = {}
    for i = 7, #ARGV, 2 do entries[#entries + 1] = { ARGV[i], ARGV[i + 1], {}, 'replay', record[2] } end
    return entries
  end
  for _, entry in ipairs(record[2]) do
    if type(entry) ~= 'table' then fail('INVALID_CONFIG', key .. ' is not a vote record') end
    entry[4] = 'replay'
  end
  return record[2]
end

-- Record an applied vote: its request and reply, and what it added
-- (lib/void: what campaign_void takes back), for `ttl` seconds.
local function vote_id_record(ns, id, request, reply, ttl, info)
  rcall('SET', ns .. 'vid:' .. id, cjson.encode({ request, reply, info }), 'EX', ttl)
end
