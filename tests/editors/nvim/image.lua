-- `#image path` attaches a picture: one inside the workspace is sent as an ACP image block; a file that is not a
-- picture, or a path outside the workspace, is an error the user reads and nothing is sent; a reload names it.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat what is in #image shots/dot.png please')
  local chat = H.chat()
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.prompt = chat.last_prompt
  H.result.chat = H.chat_text()
  -- Refused before sending: not a picture, outside the workspace, a directory, missing.
  local before = #H.result.notifications
  vim.api.nvim_set_current_win(chat.input_win)
  local send = vim.fn.maparg('<CR>', 'n', false, true).callback -- the input's send key, as the user presses it
  for _, bad in ipairs({ '#image notes.txt', '#image ../outside.png', '#image shots', '#image nope.png' }) do
    vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { 'look ' .. bad })
    send()
  end
  H.result.errors = vim.tbl_map(function(n)
    return n.msg
  end, vim.list_slice(H.result.notifications, before + 1))
  H.result.input_kept = vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false)
  H.result.busy = chat.busy
  -- A reload replays the stored picture, named on its prompt.
  require('agent.chat').load(chat, { sessionId = chat.session_id })
  H.result.loaded = H.wait(30000, function()
    return H.event('AgentSessionLoaded') ~= nil
  end)
  H.result.replayed = H.chat_text()
end)
