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
  -- The resumed session goes on in the same chat.
  vim.cmd('AgentChat And now?')
  H.result.waited2 = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.turn = H.event('AgentTurnDone')
end)
