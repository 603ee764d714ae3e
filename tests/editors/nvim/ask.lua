-- :'<,'>AgentAsk sends the selection as an ACP resource block with its range, plus the question.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(H.cfg.workspace .. '/calc.py'))
  -- Select from "return" on line 2 to the end of "total" on line 3, charwise.
  vim.cmd('normal! 2G^vj$h')
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>', true, false, true), 'x', false)
  vim.cmd("'<,'>AgentAsk What does this do?")
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.prompt = H.chat() and H.chat().last_prompt
  H.result.clients_on_file = #vim.lsp.get_clients({ bufnr = vim.fn.bufnr('calc.py'), name = 'agent-server' })
end)
