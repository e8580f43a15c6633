--- @include "lib/prologue"
--- @include "lib/site_config"
--- @include "lib/stored"
-- site_page: one page of an ordered set of articles (page.lua: the whole
-- site's <prefix><order>:, group_page.lua: a group's cached ordering).

-- Check order, page and per_page (absent: the site's page_size, or
-- INVALID_CONFIG when that is corrupt); returns page and per_page as
-- numbers. lib/integer_arg's checks and words, inline: a page is read
-- often, and each helper a script defines is a closure made on every call.
local function page_args(prefix, order, page, per_page)
  if order ~= 'score' and order ~= 'time' and order ~= 'hot' and order ~= 'best' then
    fail('INVALID_ORDER', 'order must be score, time, hot or best, got "' .. order:sub(1, 80) .. '"')
  end
  if #page > 7 or not page:find('^[1-9]%d*$') or tonumber(page) > 1000000 then
    fail('INVALID_NUMBER', 'page must be an integer in 1..1000000, got "' .. page:sub(1, 80) .. '"')
  end
  if per_page == nil then
    local size = rcall('HGET', prefix .. CONFIG, 'page_size')
    return tonumber(page), stored_int(size or DEFAULT_PAGE_SIZE, 1, 100, prefix .. CONFIG, 'page_size')
  end
  if #per_page > 3 or not per_page:find('^[1-9]%d*$') or tonumber(per_page) > 100 then
    fail('INVALID_NUMBER', 'per_page must be an integer in 1..100, got "' .. per_page:sub(1, 80) .. '"')
  end
  return tonumber(page), tonumber(per_page)
end

-- Page `page` of the sorted set `set`, highest first: { total, per_page,
-- members, n }: the n members joined by spaces in one string,
-- "article:9 article:4 ...". One string instead of n costs Redis 13k
-- instructions less and the client n parsed values; the driver checks that
-- it splits into n (members are article:ID: no space). Only the members:
-- the driver reads their hashes in one MULTI/EXEC of plain commands
-- (src/site/page.rs), because every value a script reads or answers is
-- converted between RESP and Lua: reading 25 hashes here cost the server
-- several times the seeds' own flow.
local function read_page(set, page, per_page)
  local start = (page - 1) * per_page
  -- (%d: a Lua number passed to Redis is formatted with %.17g, dearer)
  local first, last = string.format('%d', start), string.format('%d', start + per_page - 1)
  local members = rcall('ZREVRANGE', set, first, last)
  return { rcall('ZCARD', set), per_page, table.concat(members, ' '), #members }
end
