-- The chat's winbar shows the rules files' share of the context (usage_update _meta from the server).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat Say hello')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.winbar = vim.wo[H.chat().win].winbar
end)
