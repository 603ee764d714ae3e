-- The server dies while an answer streams: the plugin restarts it and resumes the session; the part of the answer
-- already shown stays in the chat, with a note that it was not saved.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat Tell me a long story')
  H.result.streaming = H.wait(30000, function()
    return H.chat_text():find('chunk3 ', 1, true) ~= nil
  end)
  local chat = H.chat()
  H.result.first_client = chat.client_id
  H.result.before = H.chat_text()
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    vim.uv.kill(pid, 'sigkill')
  end
  H.result.restarted = H.wait(30000, function()
    local now = H.chat()
    return now ~= nil and now.client_id ~= H.result.first_client and H.event('AgentSessionLoaded') ~= nil
  end)
  vim.wait(200)
end)
