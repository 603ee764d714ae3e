-- `/rev<C-x><C-u>` in the chat input completes the server's slash commands; the sent `/review calc.py` reaches the
-- model expanded by the server.
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
  vim.api.nvim_set_current_win(chat.input_win)
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { '/rev' })
  vim.api.nvim_win_set_cursor(chat.input_win, { 1, 4 })
  local items = require('agent.commands').complete(0, '/rev')
  H.result.items = vim.tbl_map(function(i)
    return { word = i.word, abbr = i.abbr, menu = i.menu }
  end, items)
  -- The real keys: completion in insert mode (the menu even for one match, nothing inserted before a choice),
  -- accept the first match, leave insert mode.
  vim.o.completeopt = 'menuone,noinsert'
  local keys = vim.api.nvim_replace_termcodes('A<C-x><C-u><C-y><Esc>', true, false, true)
  vim.api.nvim_feedkeys(keys, 'x', false)
  H.result.after_keys = vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false)[1]
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { H.result.after_keys .. 'calc.py' })
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  H.result.waited2 = H.wait(30000, function()
    return turns() >= 2
  end)
  H.result.chat_text = H.chat_text()
end)
