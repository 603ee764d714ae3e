-- The server dies after a first answer: the plugin restarts it and the same chat goes on with the same session.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

local function turns()
  return #vim.tbl_filter(function(e)
    return e.name == 'AgentTurnDone'
  end, H.result.events)
end

H.run(function()
  vim.cmd('AgentChat First question')
  H.result.waited1 = H.wait(30000, function()
    return turns() >= 1
  end)
  local chat = H.chat()
  H.result.first_client = chat.client_id
  H.result.session = chat.session_id
  local children = vim.api.nvim_get_proc_children(vim.fn.getpid())
  H.result.killed = #children
  for _, pid in ipairs(children) do
    vim.uv.kill(pid, 'sigkill')
  end
  H.result.restarted = H.wait(30000, function()
    local now = H.chat()
    return now ~= nil and now.client_id ~= H.result.first_client and require('agent.client').is_ready(now.client_id)
      and H.event('AgentSessionLoaded') ~= nil
  end)
  vim.cmd('stopinsert')
  vim.cmd('AgentChat Second question')
  H.result.waited2 = H.wait(30000, function()
    return turns() >= 2
  end)
  local after = H.chat()
  H.result.same_chat = after == chat
  H.result.session_after = after and after.session_id
  local chats = 0
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):match('^agent://chat') then
      chats = chats + 1
    end
  end
  H.result.chat_buffers = chats
end)
