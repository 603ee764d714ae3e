-- Two prompts, the first failing (no answer between them); the session is then resumed and replayed.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

local function turns()
  return #vim.tbl_filter(function(e)
    return e.name == 'AgentTurnDone'
  end, H.result.events)
end

H.run(function()
  vim.cmd('AgentChat one')
  H.wait(30000, function()
    return turns() >= 1
  end)
  vim.cmd('stopinsert')
  vim.cmd('AgentChat two')
  H.result.waited = H.wait(30000, function()
    return turns() >= 2
  end)
  local chat = H.chat()
  require('agent.chat').load(chat, { sessionId = chat.session_id })
  H.result.loaded = H.wait(30000, function()
    return H.event('AgentSessionLoaded') ~= nil
  end)
end)
