--- :AgentSessions — the stored sessions of this workspace: resume one, search them (titles and what was said, on
--- the server: agent/session/search), or delete one.
local client = require('agent.client')

local M = {}

local SEARCH = { action = 'search', label = 'Search sessions…' }
local DELETE = { action = 'delete', label = 'Delete a session…' }

local function age(updated)
  return tostring(updated or ''):gsub('T', ' '):gsub('%..*$', '')
end

local function text(v)
  return v ~= nil and v ~= vim.NIL and tostring(v) or nil
end

--- One line per session: its title, when it last changed, and for a search hit the words that matched.
function M.label(s)
  if s.action then
    return s.label
  end
  local line = ('%s  (%s)'):format(text(s.title) or s.sessionId, age(s.updatedAt))
  local snippet = text(s.snippet)
  if snippet and snippet ~= text(s.title) then
    line = line .. '  — ' .. snippet:gsub('%s+', ' ')
  end
  return line
end

local function resume(chat, session)
  local chat_mod = require('agent.chat')
  chat_mod.open(chat, false)
  chat_mod.load(chat, session)
end

local function delete(chat, cl, session)
  vim.ui.select({ 'Delete', 'Keep' }, {
    prompt = ('Delete the session "%s"? This cannot be undone.'):format(text(session.title) or session.sessionId),
    kind = 'agent_session_delete_confirm',
  }, function(choice)
    if choice ~= 'Delete' then
      return
    end
    client.call(cl, 'agent/session/delete', { sessionId = session.sessionId }, function()
      if chat.session_id == session.sessionId then
        require('agent.chat').new_session(chat) -- the chat showed it: it starts afresh
      end
      vim.notify('agent: deleted the session ' .. (text(session.title) or session.sessionId), vim.log.levels.INFO)
      vim.api.nvim_exec_autocmds('User', {
        pattern = 'AgentSessionDeleted',
        modeline = false,
        data = { session_id = session.sessionId },
      })
    end)
  end)
end

local pick

--- Sessions to choose from; `query` (search results) or the whole list, with Search and Delete at the end.
local function show(chat, cl, sessions, query, mode)
  local items = vim.list_extend({}, sessions)
  if mode ~= 'delete' then
    table.insert(items, SEARCH)
    if #sessions > 0 then
      table.insert(items, DELETE)
    end
  end
  local prompt = mode == 'delete' and 'Delete which session?'
    or (query and ('Sessions matching "%s"'):format(query) or 'Resume session')
  vim.ui.select(items, { prompt = prompt, kind = 'agent_session', format_item = M.label }, function(choice)
    if not choice then
      return
    elseif choice.action == 'search' then
      vim.ui.input({ prompt = 'Search sessions (title or words said): ' }, function(q)
        q = q and vim.trim(q) or ''
        if q ~= '' then
          pick(chat, cl, q)
        end
      end)
    elseif choice.action == 'delete' then
      show(chat, cl, sessions, query, 'delete')
    elseif mode == 'delete' then
      delete(chat, cl, choice)
    else
      resume(chat, choice)
    end
  end)
end

--- `query` empty: every session of the workspace; else those whose title or messages hold it.
function pick(chat, cl, query)
  query = query and vim.trim(query) or ''
  if query == '' then
    client.call(cl, 'agent/session/list', { cwd = chat.root }, function(result)
      local sessions = result and result.sessions or {}
      if #sessions == 0 then
        vim.notify('agent: no stored sessions for ' .. chat.root, vim.log.levels.INFO)
        return
      end
      show(chat, cl, sessions, nil)
    end)
    return
  end
  client.call(cl, 'agent/session/search', { cwd = chat.root, query = query, limit = 100 }, function(result)
    local sessions = result and result.sessions or {}
    if #sessions == 0 then
      vim.notify(('agent: no session holds "%s"'):format(query), vim.log.levels.INFO)
      return
    end
    show(chat, cl, sessions, query)
  end)
end

M.pick = function(chat, cl, query)
  pick(chat, cl, query)
end

return M
