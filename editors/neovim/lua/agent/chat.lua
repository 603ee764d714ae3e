---@mod agent.chat The chat buffer (one per workspace root): streamed answers, folded reasoning, tool blocks, input.
--- The public face of the chat: the state tables and every function other modules and the tests call. The work is
--- done beside it: chat_buffer (writing), chat_updates (session updates), chat_winbar (top bar), chat_input and
--- chat_window (input and windows), chat_session (which session), chat_turn (send, stop), chat_restart (server exit).
local highlight = require('agent.highlight')
local state = require('agent.chat_state')
local buffer = require('agent.chat_buffer')
local updates = require('agent.chat_updates')
local winbar = require('agent.chat_winbar')
local input = require('agent.chat_input')
local window = require('agent.chat_window')
local session = require('agent.chat_session')
local turn = require('agent.chat_turn')
local restart = require('agent.chat_restart')

local M = {}

--- What an empty chat shows (virtual lines: not part of the conversation).
M.HELP = buffer.HELP

---@type table<integer, table> chat state by LSP client id
M.by_client = state.by_client
---@type table<string, table> chat state by session id
M.by_session = state.by_session

M.scroll_to_end = buffer.scroll_to_end
M.mode_name, M.set_modes, M.refresh = winbar.mode_name, winbar.set_modes, winbar.refresh
M.open, M.close = window.open, window.close
M.with_session, M.load, M.new_session = session.with_session, session.load, session.new_session
M.send, M.stop, M.offer_built_in_model = turn.send, turn.stop, turn.offer_built_in_model
M.on_client_exit = restart.on_client_exit

--- Open the waiting approval (keymaps.review), as :AgentReview does.
function M.review()
  require('agent.permission').review()
end

--- The chat of a client, created on first use.
function M.get(st)
  local chat = M.by_client[st.id]
  if not chat then
    chat = { client_id = st.id, root = st.root, tools = {}, busy = false, to_close = {} }
    highlight.define()
    M.by_client[st.id] = chat
  end
  if not buffer.valid_buf(chat.buf) then
    chat.buf = buffer.new_buffer(chat)
    chat.role, chat.mode, chat.tools, chat.plan = nil, nil, {}, nil
    input.map_keys(chat, chat.buf)
    buffer.show_help(chat)
  end
  return chat
end

--- Append an italic note line (stop reasons, approvals, errors) to the chat of a session.
function M.note(session_id, text)
  local chat = type(session_id) == 'table' and session_id or M.by_session[session_id]
  if not chat then
    return
  end
  buffer.note(chat, text)
end

--- A permission request is open (waiting) or answered: the tool block shows what is asked about, the top bar says
--- a choice is pending, and a rejected call is remembered as such (shown neutral, not as a failure).
function M.awaiting(session_id, tool_call, waiting, choice)
  updates.awaiting(M.by_session[session_id], tool_call, waiting, choice)
end

-- Handlers --------------------------------------------------------------------------------------------------

function M.on_update(_, params)
  local chat = params and M.by_session[params.sessionId]
  if chat and type(params.update) == 'table' then
    updates.apply(chat, params.update)
  end
end

return M
