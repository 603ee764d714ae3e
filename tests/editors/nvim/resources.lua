-- `@read<C-x><C-u>` in the chat input offers the session's MCP resources beside files; the sent mention is read
-- through the MCP session by the server.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

local function turns()
  local n = 0
  for _, e in ipairs(H.result.events) do
    n = n + (e.name == 'AgentTurnDone' and 1 or 0)
  end
  return n
end

H.run(function()
  vim.cmd('AgentChat Say hi')
  H.result.waited = H.wait(30000, function()
    return turns() >= 1
  end)
  local chat = H.chat()
  local commands = require('agent.commands')
  -- The MCP server starts in the background with the session.
  H.wait(20000, function()
    return #commands.resources(chat) > 0
  end)
  vim.api.nvim_set_current_win(chat.input_win)
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { 'Summarize @read' })
  vim.api.nvim_win_set_cursor(chat.input_win, { 1, 15 })
  H.result.start = commands.complete(1, '')
  H.result.items = vim.tbl_map(function(i)
    return type(i) == 'table' and { word = i.word, menu = i.menu } or { word = i }
  end, commands.complete(0, '@read'))
  vim.o.completeopt = 'menuone,noinsert'
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('A<C-x><C-u><C-y><Esc>', true, false, true), 'x', false)
  H.result.after_keys = vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false)[1]
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  H.result.waited2 = H.wait(30000, function()
    return turns() >= 2
  end)
end)
