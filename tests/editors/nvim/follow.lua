-- :AgentAsk opens the chat with the cursor in it: the chat follows the answer to its end. A window scrolled up
-- by the user stays where it is. The input opens in insert mode; an empty chat shows a short help.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat')
  local chat = H.chat()
  -- A script's startinsert takes effect once the pending normal command ends: 'zz' is that command, then
  -- the keys are typed text only if the input is in insert mode.
  vim.api.nvim_feedkeys('zztyped', 'xt', false)
  H.result.input_text = vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false)
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, {})
  local ns = vim.api.nvim_get_namespaces()['agent_chat_help']
  local help = {}
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, 0, -1, { details = true })) do
    for _, vl in ipairs(m[4].virt_lines or {}) do
      table.insert(help, vl[1][1])
    end
  end
  H.result.help = help
  vim.cmd('stopinsert')
  vim.cmd('edit ' .. vim.fn.fnameescape(H.cfg.workspace .. '/calc.py'))
  vim.cmd('1,2AgentAsk Explain this')
  H.result.chat_focused = vim.api.nvim_get_current_win() == chat.win
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.lines = vim.api.nvim_buf_line_count(chat.buf)
  H.result.cursor = vim.api.nvim_win_get_cursor(chat.win)[1]
  -- The user scrolls up while the next answer streams: the window stays put.
  vim.api.nvim_win_set_cursor(chat.win, { 1, 0 })
  H.result.events = {}
  require('agent.chat').send(chat, { { type = 'text', text = 'More, please' } })
  -- send() jumps to the newest line once (a new prompt), then the user scrolls up again.
  H.wait(5000, function()
    return H.chat_text():find('## Agent', #H.chat_text() - 20, true) ~= nil
  end)
  vim.api.nvim_win_set_cursor(chat.win, { 1, 0 })
  H.result.waited2 = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.cursor_after_scroll = vim.api.nvim_win_get_cursor(chat.win)[1]
  H.result.lines2 = vim.api.nvim_buf_line_count(chat.buf)
end)
