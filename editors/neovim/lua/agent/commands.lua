---@mod agent.commands Slash commands in the chat input: `/name<C-x><C-u>` completes the server's commands.
--- The server lists them (`agent/_commands/list`: prompt files and the session's MCP prompts) and expands
--- `/name args` when the message is sent; this module only completes the name.
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

--- The commands, asked synchronously (completion needs them now); {} when the server does not answer in time.
function M.list(chat)
  local cl = chat and client.get(chat.client_id)
  if not cl then
    return {}
  end
  local params = { sessionId = chat.session_id, cwd = chat.root }
  local ok, res
  if vim.fn.has('nvim-0.11') == 1 then
    ok, res = pcall(cl.request_sync, cl, 'agent/_commands/list', params, 3000, chat.input_buf)
  else
    ok, res = pcall(cl.request_sync, 'agent/_commands/list', params, 3000, chat.input_buf)
  end
  if not ok or not res or res.err or not res.result then
    return {}
  end
  return res.result.commands or {}
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
