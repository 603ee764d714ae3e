---@mod agent.commands Slash commands and MCP resources in the chat input: `/name<C-x><C-u>` completes the
--- server's commands (`agent/_commands/list`: prompt files and the session's MCP prompts), `@<C-x><C-u>` the session's
--- MCP resources (`agent/_resources/list`) beside workspace paths. Both stay text: the server expands `/name args`
--- and reads `@server:uri` when the message is sent.
local M = {}

local client = require('agent.client')

--- The chat whose input buffer is `buf`.
local function chat_of(buf)
  for _, chat in pairs(require('agent.chat').by_client) do
    if chat.input_buf == buf then
      return chat
    end
  end
end

--- A request answered synchronously (completion needs the answer now); nil when it fails or takes too long.
local function sync(chat, method, params)
  local cl = chat and client.get(chat.client_id)
  if not cl then
    return nil
  end
  local ok, res
  if vim.fn.has('nvim-0.11') == 1 then
    ok, res = pcall(cl.request_sync, cl, method, params, 3000, chat.input_buf)
  else
    ok, res = pcall(cl.request_sync, method, params, 3000, chat.input_buf)
  end
  if not ok or not res or res.err then
    return nil
  end
  return res.result
end

--- The commands; {} when the server does not answer in time.
function M.list(chat)
  local result = sync(chat, 'agent/_commands/list', { sessionId = chat and chat.session_id, cwd = chat and chat.root })
  return result and result.commands or {}
end

--- The session's MCP resources and templates (none before the chat has a session).
function M.resources(chat)
  if not (chat and chat.session_id) then
    return {}
  end
  local result = sync(chat, 'agent/_resources/list', { sessionId = chat.session_id })
  return result and result.resources or {}
end

--- 'completefunc' of the input buffer: `/` at the start of the message completes commands; anything else is an
--- `@path` / `#buffer` mention (agent.mentions).
function M.complete(findstart, base)
  local mentions = require('agent.mentions')
  if findstart == 1 then
    local row, col = unpack(vim.api.nvim_win_get_cursor(0))
    local line = vim.api.nvim_get_current_line():sub(1, col)
    if row == 1 and line:match('^/[%w._:-]*$') then
      return 0
    end
    return mentions.complete(1, base)
  end
  if base:sub(1, 1) == '@' then
    local items = {}
    local needle = base:sub(2):lower()
    for _, r in ipairs(M.resources(chat_of(vim.api.nvim_get_current_buf()))) do
      if r.mention:lower():find(needle, 1, true) or r.name:lower():find(needle, 1, true) then
        table.insert(items, { word = '@' .. r.mention, menu = r.template and 'mcp template' or 'mcp', info = r.description })
      end
    end
    return vim.list_extend(items, mentions.complete(0, base))
  end
  if base:sub(1, 1) ~= '/' then
    return mentions.complete(0, base)
  end
  local items = {}
  local needle = base:sub(2):lower()
  for _, c in ipairs(M.list(chat_of(vim.api.nvim_get_current_buf()))) do
    if vim.startswith(c.name:lower(), needle) then
      local hint = c.hint ~= vim.NIL and c.hint or nil
      table.insert(items, {
        word = '/' .. c.name .. ' ',
        abbr = '/' .. c.name .. (hint and (' ' .. hint) or ''),
        menu = c.description,
        info = ('%s\n(%s)'):format(c.description, c.source),
      })
    end
  end
  return items
end

return M
