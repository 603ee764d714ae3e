---@mod agent.chat_session Which session a chat shows: a new one on first use, a stored one replayed, a fresh start.
local client = require('agent.client')
local state = require('agent.chat_state')
local buffer = require('agent.chat_buffer')
local winbar = require('agent.chat_winbar')

local M = {}

local begin, append_stream, close_folds, reset = buffer.begin, buffer.append_stream, buffer.close_folds, buffer.reset
local set_winbar = winbar.refresh

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- Run fn() once the chat has a session (agent/session/new on first use). A mode picked with :AgentMode before
--- (chat.mode_wanted) carries over to a new session.
function M.with_session(chat, cl, fn, on_error)
  if chat.session_id then
    return fn()
  end
  client.call(cl, 'agent/session/new', { cwd = chat.root, mcpServers = {} }, function(result)
    if not result then
      if on_error then
        on_error()
      end
      return
    end
    chat.session_id = result.sessionId
    state.by_session[chat.session_id] = chat
    winbar.set_modes(chat, result.modes)
    set_winbar(chat)
    local wanted = chat.mode_wanted
    if wanted and chat.modes and chat.modes.currentModeId ~= wanted then
      client.request(cl, 'agent/session/set_mode', { sessionId = chat.session_id, modeId = wanted }, function(err)
        if err then
          chat.mode_wanted = nil -- the profile is gone: stay in the session's default
        else
          chat.modes.currentModeId = wanted
        end
        set_winbar(chat)
        fn()
      end)
    else
      fn()
    end
  end)
end

--- Replace the chat with a stored session: agent/session/load replays it as updates.
function M.load(chat, session)
  local cl = client.get(chat.client_id)
  if not cl then
    return
  end
  if chat.session_id then
    state.by_session[chat.session_id] = nil
  end
  reset(chat)
  chat.session_id = session.sessionId
  chat.title = session.title ~= vim.NIL and session.title or nil
  state.by_session[chat.session_id] = chat
  set_winbar(chat)
  local params = { sessionId = session.sessionId, cwd = chat.root, mcpServers = {} }
  client.call(cl, 'agent/session/load', params, function(result)
    close_folds(chat)
    winbar.set_modes(chat, result and result.modes)
    local partial = chat.partial
    chat.partial = nil
    if result and partial then
      -- The server died mid-answer: that part was never stored, so the replay lacks it. Kept here, and said so.
      begin(chat, 'text', 'agent')
      append_stream(chat, table.concat(partial, '\n'))
      local lost = 'the server stopped while answering: the part above was not saved, and the model will not see it'
      buffer.note(chat, lost)
    end
    if result then
      buffer.note(chat, 'resumed: ' .. (chat.title or session.sessionId))
    end
    buffer.scroll_to_end(chat) -- a resumed chat goes on at its end
    set_winbar(chat)
    fire('AgentSessionLoaded', { session_id = session.sessionId, ok = result ~= nil })
  end)
end

--- Start a fresh session in this chat.
function M.new_session(chat)
  if chat.session_id then
    state.by_session[chat.session_id] = nil
  end
  chat.session_id = nil
  chat.title = nil
  chat.usage = nil -- the old session's context use
  -- A mode picked with :AgentMode carries over (the next session/new switches to it); otherwise the new session's
  -- mode is unknown until session/new tells it.
  if chat.mode_wanted and chat.modes then
    chat.modes.currentModeId = chat.mode_wanted
  else
    chat.modes = nil
  end
  reset(chat)
  set_winbar(chat)
end

return M
