-- Second Neovim (a new server process): :AgentSessions lists the stored session, and loading it replays it.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      table.insert(H.result.offered, { id = item.sessionId, label = opts.format_item(item) })
    end
    vim.schedule(function()
      on_choice(items[1], 1)
    end)
  end
  vim.cmd('AgentSessions')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentSessionLoaded') ~= nil
  end)
  H.result.loaded = H.event('AgentSessionLoaded')
  local chat = H.chat()
  H.result.resume_cursor = vim.api.nvim_win_get_cursor(chat.win)[1]
  H.result.resume_lines = vim.api.nvim_buf_line_count(chat.buf)
  H.result.resume_winbar = vim.wo[chat.win].winbar
  -- The resumed session goes on in the same chat.
  vim.cmd('AgentChat And now?')
  H.result.waited2 = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.turn = H.event('AgentTurnDone')
end)
