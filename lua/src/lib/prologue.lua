-- prologue: what every script opens with. `rcall` is redis.call; `fail`
-- refuses the call with a stable code (REDVOTE_<CODE> <detail>); the
-- epilogue (lib/epilogue) turns it into the error reply.
local rcall = redis.call
local function fail(code, detail) error('REDVOTE_' .. code .. ' ' .. detail, 0) end
