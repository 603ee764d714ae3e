-- The workspace-trust question in Neovim: the choice comes through vim.ui.select and the programs, URLs and rules at
-- stake stay in a window beside it until it is answered; then a workspace profile's ignored allow rules are named.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.questions = {}
  vim.ui.select = function(items, opts, on_choice)
    local details = {}
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      local buf = vim.api.nvim_win_get_buf(win)
      if vim.api.nvim_win_get_config(win).relative ~= '' and vim.b[buf].agent_question then
        details = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
      end
    end
    table.insert(H.result.questions, {
      kind = opts.kind,
      prompt = opts.prompt,
      details = details,
      items = vim.tbl_map(opts.format_item, items),
    })
    vim.defer_fn(function()
      for i, item in ipairs(items) do
        if item.title == H.cfg.setup.answer then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  local function notified(text)
    for _, n in ipairs(H.result.notifications) do
      if n.msg:find(text, 1, true) then
        return true
      end
    end
    return false
  end
  vim.cmd('AgentChat')
  H.result.ignored = H.wait(30000, function()
    return notified('Ignored until you trust')
  end)
  H.result.details_left_open = false
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.b[vim.api.nvim_win_get_buf(win)].agent_question then
      H.result.details_left_open = true
    end
  end
  vim.cmd('AgentMode yolo')
  H.result.profile_notice = H.wait(20000, function()
    return notified('Agent profile yolo')
  end)
end)
