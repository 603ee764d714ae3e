-- :AgentStop cancels a long answer: the prompt returns stopReason "cancelled" and the chat says so.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat Tell me a long story')
  H.result.streaming = H.wait(20000, function()
    return H.chat_text():find('chunk2 ', 1, true) ~= nil
  end)
  vim.cmd('AgentStop')
  H.result.waited = H.wait(10000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
end)
