-- :AgentStop while the user reviews an approval (the diff tab or the float): the turn ends cancelled and its review
-- goes with it: no stale tab or window, nothing pending, the file untouched.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local permission = require('agent.permission')
  H.result.tabs_before = #vim.api.nvim_list_tabpages()
  H.result.wins_before = #vim.api.nvim_list_wins()
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.pending = H.wait(30000, function()
    return #permission.open_reviews > 0
  end)
  vim.cmd('stopinsert')
  vim.cmd('AgentReview')
  local review = permission.open_reviews[1]
  H.result.tabs_open = #vim.api.nvim_list_tabpages()
  H.result.review_win = review and review.win ~= nil and vim.api.nvim_win_is_valid(review.win)
  H.result.wins_open = #vim.api.nvim_list_wins()
  vim.cmd('AgentStop')
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.tabs_after = #vim.api.nvim_list_tabpages()
  H.result.wins_after = #vim.api.nvim_list_wins()
  H.result.review_win_after = review and review.win ~= nil and vim.api.nvim_win_is_valid(review.win)
  H.result.pending_after = #permission.open_reviews
  H.result.notice_after = require('agent.approval_notice').window() ~= nil
end)
