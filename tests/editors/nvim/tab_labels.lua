-- The tab line while a diff review is open (:AgentReview), as drawn: each tab's label in words, none of Neovim's
-- shortened agent:// names. setup.tabline = false keeps Neovim's own tab line (the labels it draws are recorded).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

-- A headless Neovim (no UI) keeps the 80x24 grid it started with and asserts when a tab line is drawn beyond it.
vim.o.columns = 80
vim.o.lines = 24

H.run(function()
  local permission = require('agent.permission')
  vim.cmd('edit ' .. vim.fn.fnameescape(H.cfg.workspace .. '/calc.py'))
  vim.cmd('AgentChat Fix the sign')
  H.result.pending = H.wait(30000, function()
    return #permission.open_reviews > 0
  end)
  vim.cmd('stopinsert')
  vim.cmd('AgentReview')
  vim.cmd('redraw!')
  local cells = {}
  for c = 1, vim.o.columns do
    cells[#cells + 1] = vim.fn.screenstring(1, c)
  end
  H.result.tabline = table.concat(cells)
  H.result.option = vim.o.tabline
  permission.open_reviews[1].answer('allow_once')
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
end)
