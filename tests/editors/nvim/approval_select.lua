-- approval_ui = 'select': a write asks through vim.ui.select once :AgentReview opens it; choosing "Allow once" lets
-- the agent write the file.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local names = {}
    for _, item in ipairs(items) do
      table.insert(names, opts.format_item and opts.format_item(item) or tostring(item))
    end
    table.insert(H.result.asked, { prompt = opts.prompt, items = names, kind = opts.kind })
    -- Answer later, as a real picker (telescope, snacks) does.
    vim.defer_fn(function()
      for i, name in ipairs(names) do
        if name == H.cfg.setup.choose then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end, 50)
  end
  H.cfg.setup.choose = H.cfg.setup.choose or 'Allow once'
  vim.cmd('AgentChat Write hi into hello.txt')
  -- The picker does not open by itself (it would take the keys typed for something else): :AgentReview opens it.
  H.result.pending = H.wait(30000, function()
    return #require('agent.permission').open_reviews > 0
  end)
  H.result.asked_before_review = #H.result.asked
  vim.cmd('AgentReview')
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  local bufnr = vim.fn.bufnr(H.cfg.workspace .. '/hello.txt')
  if bufnr > 0 then
    H.result.hello_buffer = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    H.result.hello_modified = vim.bo[bufnr].modified
  end
end)
