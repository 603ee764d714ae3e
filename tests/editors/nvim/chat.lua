-- :AgentChat streams the answer into the chat buffer; the reasoning is folded.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat Say hello')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  local chat = H.chat()
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.filetype = vim.bo[chat.buf].filetype
  H.result.chat_visible = vim.api.nvim_win_is_valid(chat.win) and vim.api.nvim_win_get_buf(chat.win) == chat.buf
  H.result.input_focused = vim.api.nvim_get_current_buf() == chat.input_buf
  -- Which lines of the chat window are folded away.
  local folded = {}
  vim.api.nvim_win_call(chat.win, function()
    for l = 1, vim.api.nvim_buf_line_count(chat.buf) do
      if vim.fn.foldclosed(l) ~= -1 then
        table.insert(folded, vim.fn.getline(l))
      end
    end
  end)
  H.result.folded = folded
  -- A second message typed in the input window and sent with <CR>.
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { 'And again?' })
  vim.api.nvim_set_current_win(chat.input_win)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  H.result.waited2 = H.wait(20000, function()
    local n = 0
    for _, e in ipairs(H.result.events) do
      n = n + (e.name == 'AgentTurnDone' and 1 or 0)
    end
    return n >= 2
  end)
  H.result.clients = #vim.lsp.get_clients({ name = 'agent-server' })
end)
