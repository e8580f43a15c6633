--- @include "lib/prologue"
--- @include "lib/args"
--- @include "lib/names"
-- site_args: the article site's own argument checks, on top of lib/args.

-- The site root "<prefix>article:" (the article id counter), every site
-- script's one key: returns it and <prefix>, from which every other key
-- derives.
local function site_root(op)
  return one_key(op, 'article:', 'site root "<prefix>article:"')
end

-- An article reference, "N" or "article:N" (N 1..15 digits, no leading
-- zero): returns the id N, or refuses with INVALID_ID.
local function article_id(ref)
  local id = ref:match('^article:([1-9]%d*)$') or ref:match('^([1-9]%d*)$')
  if not id or #id > 15 then fail('INVALID_ID', 'article must be N or article:N, got "' .. ref:sub(1, 80) .. '"') end
  return id
end

-- A group name (lib/names' rule), or INVALID_GROUP.
local function check_group(group)
  if not name_ok(group) then
    fail('INVALID_GROUP', 'group must be 1..64 bytes without : { } * ? [ ] \\ , spaces or control characters, got "' .. group:sub(1, 80) .. '"')
  end
end
