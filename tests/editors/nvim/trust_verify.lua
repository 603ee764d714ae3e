-- A workspace whose .agent-server.toml names a verify command (it needs trust): the prompt is sent at once, the
-- trust question comes meanwhile and the user trusts the workspace. Each approval of the turn is announced the
-- moment it arrives (the notice, nothing focused) and answered through :AgentReview; the newly trusted verify
-- command runs in this very turn.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local permission = require('agent.permission')
  H.result.questions = {}
  vim.ui.select = function(items, opts, on_choice)
    table.insert(H.result.questions, opts.prompt)
    vim.defer_fn(function() -- the user reads the question, then trusts the workspace
      for i, item in ipairs(items) do
        if item.title == 'Trust this workspace' then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end, 1500)
  end
  H.result.approvals = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentApprovalWaiting',
    callback = function(ev)
      -- What the user sees the moment it arrives, before any key: the notice, and no review took the focus.
      local entry = permission.open_reviews[#permission.open_reviews]
      table.insert(H.result.approvals, {
        title = ev.data.title,
        notice = require('agent.approval_notice').window() ~= nil,
        in_review = entry ~= nil and (entry.win ~= nil or entry.tab ~= nil),
      })
    end,
  })
  vim.cmd('AgentChat Write hi into hello.txt')
  H.result.waited = H.wait(60000, function()
    local entry = permission.open_reviews[1]
    if entry and not entry.settled then
      permission.review() -- :AgentReview
      vim.api.nvim_feedkeys(entry.diff and 'gy' or 'a', 'x', false) -- the diff tab's allow, or the window's
    end
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
end)
