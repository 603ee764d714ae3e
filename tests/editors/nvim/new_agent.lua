-- :AgentNewAgent: the short form is answered programmatically (vim.ui.input / vim.ui.select, as a user would),
-- the profile file is created and opened, and :AgentMode can switch to it.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local answers = H.cfg.setup.answers
  H.result.inputs, H.result.selects = {}, {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(H.result.inputs, opts.prompt)
    local answer
    for key, value in pairs(answers.inputs) do
      if opts.prompt:find(key, 1, true) then
        answer = value
      end
    end
    vim.defer_fn(function()
      on_confirm(answer)
    end, 20)
  end
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(function(i)
      return opts.format_item and opts.format_item(i) or tostring(i)
    end, items)
    table.insert(H.result.selects, { kind = opts.kind, items = labels })
    local want = answers.selects[opts.kind]
    vim.defer_fn(function()
      for i, label in ipairs(labels) do
        if want and label:find(want, 1, true) then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  local created
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentProfileCreated',
    callback = function(ev)
      created = ev.data
    end,
  })
  vim.cmd('AgentChat')
  vim.cmd('AgentNewAgent')
  H.result.created = H.wait(30000, function()
    return created ~= nil
  end)
  H.result.created_data = created
  H.result.current_file = vim.api.nvim_buf_get_name(0)
  H.result.current_lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local before = H.chat()
  local cur = vim.api.nvim_get_current_win()
  H.result.in_chat_window = cur == before.win or cur == before.input_win
  H.result.input_window_kept = vim.b[vim.api.nvim_win_get_buf(before.input_win)].agent_input == true
  H.result.profile_window_float = vim.api.nvim_win_get_config(cur).relative ~= ''
  vim.cmd('AgentMode ' .. answers.inputs['name'])
  H.result.switched = H.wait(20000, function()
    local chat = H.chat()
    return chat and chat.modes and chat.modes.currentModeId == answers.inputs['name']
  end)
  local chat = H.chat()
  H.result.winbar = vim.wo[chat.win].winbar
end)
