-- Without a markdown treesitter parser the chat still works, with the regex markdown syntax.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.treesitter.start = function()
    error('no parser for markdown')
  end
  vim.cmd('AgentChat Say hello')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  local chat = H.chat()
  H.result.syntax = vim.bo[chat.buf].syntax
  H.result.ts_active = vim.treesitter.highlighter.active[chat.buf] ~= nil
end)
