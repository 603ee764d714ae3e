-- :AgentMode with no argument picks a mode through vim.ui.select (plan here); the top bar shows it, and the next
-- prompt runs in it. Then :AgentMode ask switches by name.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.offered = {}
  vim.ui.select = function(items, opts, on_choice)
    H.result.select_kind = opts.kind
    for _, item in ipairs(items) do
      table.insert(H.result.offered, opts.format_item(item))
    end
    vim.defer_fn(function()
      for i, item in ipairs(items) do
        if item.id == H.cfg.setup.pick then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  vim.cmd('AgentChat')
  local function winbar()
    local chat = H.chat()
    return chat and vim.api.nvim_win_is_valid(chat.win) and vim.wo[chat.win].winbar or ''
  end
  vim.cmd('AgentMode')
  H.result.switched = H.wait(20000, function()
    local chat = H.chat()
    return chat and chat.modes and chat.modes.currentModeId == H.cfg.setup.pick
  end)
  H.result.winbar_after_pick = winbar()
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.first_session = (H.event('AgentTurnDone') or {}).session_id
  H.result.winbar_after_turn = winbar()
  vim.cmd('AgentMode ask')
  H.result.switched2 = H.wait(20000, function()
    return H.chat().modes.currentModeId == 'ask'
  end)
  H.result.winbar_ask = winbar()
  -- A new session keeps the mode picked last (and shows it once the session exists).
  vim.cmd('AgentNew')
  H.result.winbar_new_session = winbar()
  H.result.events = {}
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt2)
  H.result.waited2 = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.second_session = (H.event('AgentTurnDone') or {}).session_id
  H.result.mode_second_session = H.chat().modes.currentModeId
  H.result.winbar_second_session = winbar()
  vim.cmd('AgentMode no-such-mode')
  H.wait(5000, function()
    return #vim.tbl_filter(function(n)
      return n.msg:find('no mode', 1, true) ~= nil
    end, H.result.notifications) > 0
  end)
  H.result.screen = H.screen()
end)
