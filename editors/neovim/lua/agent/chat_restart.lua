---@mod agent.chat_restart A chat's server exited: keep what the answer had shown, restart it and resume the session.
local client = require('agent.client')
local state = require('agent.chat_state')
local buffer = require('agent.chat_buffer')
local winbar = require('agent.chat_winbar')
local session = require('agent.chat_session')

local M = {}

local ns, valid_buf = buffer.ns, buffer.valid_buf
local set_winbar = winbar.refresh

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

local restarts = {} -- root -> times of automatic restarts (a server that dies at once is not restarted forever)

--- The lines of the answer being written (after its "## Agent"), or nil when it had none yet.
local function partial_answer(chat)
  if not (chat.answer_mark and valid_buf(chat.buf)) then
    return nil
  end
  local ok, pos = pcall(vim.api.nvim_buf_get_extmark_by_id, chat.buf, ns, chat.answer_mark, {})
  if not ok or not pos[1] then
    return nil
  end
  local lines = vim.api.nvim_buf_get_lines(chat.buf, pos[1] + 1, -1, false)
  while #lines > 0 and vim.trim(lines[1]) == '' do
    table.remove(lines, 1)
  end
  while #lines > 0 and vim.trim(lines[#lines]) == '' do
    table.remove(lines)
  end
  return #lines > 0 and lines or nil
end

--- The server of a chat exited. `restart_root`: it died, so start a new one and continue the chat's session in
--- the same chat (the session lives in the server's store; session/load brings it back and replays it).
function M.on_client_exit(client_id, restart_root)
  local chat = state.by_client[client_id]
  if not chat then
    return
  end
  state.by_client[client_id] = nil
  if chat.session_id then
    require('agent.permission').cancel_session(chat.session_id) -- nobody is left to hear the answer
  end
  if chat.busy then
    chat.busy = false
    chat.partial = partial_answer(chat)
    buffer.note(chat, 'the server stopped')
    fire('AgentTurnDone', { session_id = chat.session_id, stop_reason = 'error', error = 'the server stopped' })
  end
  if chat.session_id then
    state.by_session[chat.session_id] = nil
  end
  if not restart_root then
    return
  end
  local now, recent = vim.uv.now(), {}
  for _, t in ipairs(restarts[restart_root] or {}) do
    if now - t < 60000 then
      recent[#recent + 1] = t
    end
  end
  if #recent >= 3 then
    buffer.note(chat, 'the server keeps stopping: not restarting it (see :checkhealth agent)')
    return
  end
  recent[#recent + 1] = now
  restarts[restart_root] = recent
  local st = client.ensure(restart_root)
  if not st then
    return
  end
  chat.client_id = st.id
  state.by_client[st.id] = chat
  buffer.note(chat, 'the server stopped; restarted it')
  local session_id = chat.session_id
  if session_id then
    state.by_session[session_id] = chat
    client.when_ready(st.id, function()
      session.load(chat, { sessionId = session_id, title = chat.title })
    end)
  end
  set_winbar(chat)
end

return M
