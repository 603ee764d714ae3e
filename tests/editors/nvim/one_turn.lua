-- One :AgentChat prompt (setup.prompt), waited for; the chat and the turn's end are recorded.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat ' .. (H.cfg.setup.prompt or 'hello'))
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.done = H.event('AgentTurnDone')
end)
