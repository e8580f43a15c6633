--- @include "lib/integer_arg"
--- @include "lib/prologue"
--- @include "lib/site_config"
-- site_page: one page of an ordered set of articles (page.lua: the whole
-- site's <prefix><order>:, group_page.lua: a group's cached ordering).

-- The default articles per page (a number), or INVALID_CONFIG.
local function page_size_setting(prefix)
  local size = rcall('HGET', prefix .. CONFIG, 'page_size') or DEFAULT_PAGE_SIZE
  return stored_int(size, 1, 100, prefix .. CONFIG, 'page_size')
end

-- Check order, page and per_page (absent: the site's page_size); returns
-- page and per_page as numbers.
local function page_args(prefix, order, page, per_page)
  if order ~= 'score' and order ~= 'time' and order ~= 'hot' and order ~= 'best' then
    fail('INVALID_ORDER', 'order must be score, time, hot or best, got "' .. order:sub(1, 80) .. '"')
  end
  page = integer_arg(page, 'page', 1, 1000000)
  if per_page == nil then return page, page_size_setting(prefix) end
  return page, integer_arg(per_page, 'per_page', 1, 100)
end

-- Page `page` of the sorted set `set`, highest first: { total, per_page,
-- { id, score (the article's score:), { field, value, ... } }, ... }.
local function read_page(prefix, set, page, per_page)
  local start = (page - 1) * per_page
  local reply = { rcall('ZCARD', set), per_page }
  local members = rcall('ZREVRANGE', set, start, start + per_page - 1)
  if #members == 0 then return reply end
  local scores = rcall('ZMSCORE', prefix .. 'score:', unpack(members))
  for i, member in ipairs(members) do
    local id = member:match('^article:(%d+)$')
    reply[#reply + 1] = { id or member, scores[i], id and rcall('HGETALL', prefix .. member) or {} }
  end
  return reply
end
