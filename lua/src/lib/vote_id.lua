--- @include "lib/prologue"
-- vote_id: idempotency keys of campaign votes. A vote with an id is recorded
-- at <ns>vid:ID, in the same call as its writes, as the JSON
-- [request, reply] (request: every argument but the id, as JSON; a retry
-- sends the same ones). Needs rcall and fail (lib/prologue).

-- The id's record: returns the recorded reply marked as a replay when `id`
-- was applied with the same arguments (the caller answers it and writes
-- nothing), or nil and the request to record. REDVOTE_VOTE_ID_REUSED when
-- the id was applied with other arguments; REDVOTE_INVALID_CONFIG when the
-- record is corrupt; REDVOTE_INVALID_VOTE_ID for an id that is empty,
-- longer than 128 bytes or holds control characters.
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
  if not ok or type(record) ~= 'table' or type(record[1]) ~= 'string' or type(record[2]) ~= 'table' then
    fail('INVALID_CONFIG', key .. ' is not a vote record')
  end
  if record[1] ~= request then
    fail('VOTE_ID_REUSED', 'vote id ' .. id .. ' was applied to another vote (user, pairs or context differ)')
  end
  for _, entry in ipairs(record[2]) do
    if type(entry) ~= 'table' then fail('INVALID_CONFIG', key .. ' is not a vote record') end
    entry[4] = 'replay'
  end
  return record[2]
end

-- Record an applied vote: its request and reply, for `ttl` seconds.
local function vote_id_record(ns, id, request, reply, ttl)
  rcall('SET', ns .. 'vid:' .. id, cjson.encode({ request, reply }), 'EX', ttl)
end
