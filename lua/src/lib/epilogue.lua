-- epilogue: what every script closes with: run main() and answer its
-- result, or its refusal as an error reply.
-- Every refusal leaves through fail() before the first write; anything else
-- (a Redis error, a Lua bug) is still answered as a stable code, never as a
-- raw Lua error.
local ok, res = pcall(main)
if ok then return res end
if type(res) == 'table' then res = res.err end
res = tostring(res)
if not res:find('^REDVOTE_') then res = 'REDVOTE_INTERNAL ' .. res end
return redis.error_reply(res)
