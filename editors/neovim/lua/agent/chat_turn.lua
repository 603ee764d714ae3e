---@mod agent.chat_turn A turn in a chat: send a prompt (shown at once, sent when the agent is ready), stop it.
local client = require('agent.client')
local render = require('agent.render')
local buffer = require('agent.chat_buffer')
local winbar = require('agent.chat_winbar')
local session = require('agent.chat_session')

local M = {}

local ns = buffer.ns
local begin, append_stream, close_folds = buffer.begin, buffer.append_stream, buffer.close_folds
local set_winbar = winbar.refresh
local with_session = session.with_session

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- No LLM server answered: offer the built-in model (llm.provider = "embedded") in one action. The choice is
--- this client's `agentServer` settings, which the server pulls on workspace/didChangeConfiguration.
function M.offer_built_in_model(cl, chat, offer)
  if not offer.available then
    buffer.note(chat, 'no LLM server answered; for the built-in local model: ' .. tostring(offer.install))
    return
  end
  local size = offer.downloaded and ''
    or string.format(' (%d MB, downloaded once)', math.floor((tonumber(offer.downloadBytes) or 0) / 1e6))
  local use = 'Use the built-in model ' .. tostring(offer.model) .. size
  vim.ui.select({ use, 'Not now' }, { prompt = 'No local LLM server answered.' }, function(choice)
    if choice ~= use then
      return
    end
    cl.settings = vim.tbl_deep_extend('force', cl.settings or {}, { agentServer = { llm = { provider = 'embedded' } } })
    client.notify(cl, 'workspace/didChangeConfiguration', { settings = vim.NIL })
    buffer.note(chat, 'using the built-in model: send your message again')
  end)
end

--- Send a prompt (a list of ACP content blocks) in this chat. The prompt shows at once, also while the server
--- is still starting ("starting the agent…" in the top bar); it is sent when the agent is ready.
function M.send(chat, blocks)
  if chat.busy then
    vim.notify('agent: a turn is still running (:AgentStop to cancel it)', vim.log.levels.WARN)
    return
  end
  if not client.get(chat.client_id) then
    vim.notify('agent: the server is not running', vim.log.levels.ERROR)
    return
  end
  chat.busy = true
  chat.last_prompt = blocks
  chat.plan = nil
  chat.follow = true -- a new prompt brings every chat window to the newest line
  begin(chat, 'text', 'user')
  append_stream(chat, render.prompt_text(blocks))
  begin(chat, 'start', 'agent')
  -- Where this answer starts ("## Agent"): if the server dies mid-answer, what it had written is kept from here.
  local last = vim.api.nvim_buf_line_count(chat.buf)
  chat.answer_mark = vim.api.nvim_buf_set_extmark(chat.buf, ns, math.max(0, last - 2), 0, {})
  set_winbar(chat)
  client.when_ready(chat.client_id, function(cl)
    set_winbar(chat)
    with_session(chat, cl, function()
      local params = { sessionId = chat.session_id, prompt = blocks }
      client.request(cl, 'agent/session/prompt', params, function(err, result)
        chat.busy = false
        -- An approval the turn still waited for goes with it (a stopped turn leaves no review window or tab).
        require('agent.permission').cancel_session(params.sessionId)
        set_winbar(chat)
        close_folds(chat)
        local reason
        if err then
          reason = 'error'
          buffer.note(chat, 'error: ' .. tostring(err.message))
          local offer = type(err.data) == 'table' and err.data.embedded or nil
          if type(offer) == 'table' then
            M.offer_built_in_model(cl, chat, offer)
          end
        else
          reason = result and result.stopReason or 'end_turn'
          if reason ~= 'end_turn' then
            buffer.note(chat, 'stopped: ' .. reason)
          end
        end
        chat.last_stop = reason
        fire('AgentTurnDone', { session_id = chat.session_id, stop_reason = reason, error = err and err.message })
      end)
    end, function()
      chat.busy = false
      set_winbar(chat)
      fire('AgentTurnDone', { session_id = nil, stop_reason = 'error', error = 'no session' })
    end)
  end)
end

--- Cancel the running turn; the prompt then returns stopReason "cancelled".
function M.stop(chat)
  local cl = client.get(chat.client_id)
  if not (cl and chat.session_id and chat.busy) then
    vim.notify('agent: nothing to stop', vim.log.levels.INFO)
    return false
  end
  client.notify(cl, 'agent/session/cancel', { sessionId = chat.session_id })
  require('agent.permission').cancel_session(chat.session_id) -- its review window or tab closes at once
  return true
end

return M
