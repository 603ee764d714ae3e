---@mod agent.modes Modes (agent profiles) per session, and the short form that creates a profile.
local client = require('agent.client')

local M = {}

--- The modes to offer: the session's modes in its order, plus profiles the server's catalog has gained since the
--- session started (a profile made with :AgentNewAgent). Each item: {id, name, description, readOnly}.
local function offered(chat, cl, cb)
  client.request(cl, 'agent/_agents/list', { cwd = chat.root }, function(err, result)
    local items, by_id = {}, {}
    for _, m in ipairs(chat.modes and type(chat.modes.availableModes) == 'table' and chat.modes.availableModes or {}) do
      local item = { id = m.id, name = m.name, description = m.description ~= vim.NIL and m.description or nil }
      table.insert(items, item)
      by_id[m.id] = item
    end
    if not err and result and type(result.agents) == 'table' then
      for _, a in ipairs(result.agents) do
        local item = by_id[a.name]
        if not item then
          item = { id = a.name, name = a.name, description = a.description ~= vim.NIL and a.description or nil }
          table.insert(items, item)
          by_id[a.name] = item
        end
        item.readOnly = a.readOnly == true
      end
      for _, e in ipairs(type(result.errors) == 'table' and result.errors or {}) do
        local msg = type(e) == 'table' and tostring(e.message or vim.inspect(e)) or tostring(e)
        vim.notify('agent: ' .. msg, vim.log.levels.WARN)
      end
    end
    cb(items)
  end)
end

local function find(items, name)
  local want = name:lower()
  for _, m in ipairs(items) do
    if m.id:lower() == want or (type(m.name) == 'string' and m.name:lower() == want) then
      return m
    end
  end
end

--- Switch the chat's session to a mode; the top bar follows (also through the server's current_mode_update).
local function apply(chat, cl, mode)
  local chat_mod = require('agent.chat')
  local before = chat.mode_wanted
  chat.mode_wanted = mode.id -- at once: the current_mode_update may arrive before this answer
  client.call(cl, 'agent/session/set_mode', { sessionId = chat.session_id, modeId = mode.id }, function(result)
    if not result then
      chat.mode_wanted = before
      return
    end
    chat.modes = chat.modes or { availableModes = {} }
    chat.modes.currentModeId = mode.id
    local known = find(chat.modes.availableModes or {}, mode.id)
    if not known then
      table.insert(chat.modes.availableModes, { id = mode.id, name = mode.name or mode.id, description = mode.description })
    end
    chat_mod.refresh(chat)
    vim.notify('agent: mode ' .. (chat_mod.mode_name(chat) or mode.id), vim.log.levels.INFO)
    vim.api.nvim_exec_autocmds('User', { pattern = 'AgentModeChanged', modeline = false, data = { mode = mode.id } })
  end)
end

--- :AgentMode [name] — switch the mode; without a name, pick one with vim.ui.select.
function M.pick(chat, cl, name)
  local chat_mod = require('agent.chat')
  if chat.busy then
    vim.notify('agent: a turn is running; the mode changes for the next one', vim.log.levels.INFO)
  end
  chat_mod.with_session(chat, cl, function()
    offered(chat, cl, function(items)
      if name and vim.trim(name) ~= '' then
        local mode = find(items, vim.trim(name))
        if not mode then
          local ids = vim.tbl_map(function(m)
            return m.id
          end, items)
          vim.notify(('agent: no mode %q (there are: %s)'):format(name, table.concat(ids, ', ')), vim.log.levels.ERROR)
          return
        end
        return apply(chat, cl, mode)
      end
      if #items == 0 then
        vim.notify('agent: the server offers no modes', vim.log.levels.WARN)
        return
      end
      local current = chat.modes and chat.modes.currentModeId
      vim.ui.select(items, {
        prompt = 'Mode (current: ' .. tostring(chat_mod.mode_name(chat) or current) .. ')',
        kind = 'agent_mode',
        format_item = function(m)
          local mark = m.id == current and '→ ' or '  '
          local ro = m.readOnly and ' [read-only]' or ''
          return mark .. m.id .. ro .. (m.description and ('  — ' .. m.description) or '')
        end,
      }, function(choice)
        if choice then
          apply(chat, cl, choice)
        end
      end)
    end)
  end)
end

--- Mode names for :AgentMode <Tab>, from the running chat's session.
function M.complete(lead)
  local st = client.running()
  local chat = st and require('agent.chat').by_client[st.id]
  local out = {}
  for _, m in ipairs(chat and chat.modes and chat.modes.availableModes or {}) do
    if vim.startswith(m.id, lead or '') then
      table.insert(out, m.id)
    end
  end
  return out
end

M.TOOL_CHOICES = {
  { label = 'every tool (the default)', tools = nil },
  { label = 'read-only: read_file, search_text, find_files, codebase_search', tools = { 'read_file', 'search_text', 'find_files', 'codebase_search' } },
  { label = 'read and edit: also write_file, edit_file', tools = { 'read_file', 'search_text', 'find_files', 'codebase_search', 'write_file', 'edit_file' } },
  { label = 'a list I type (names or globs, comma-separated)', custom = true },
}

local function split_list(text)
  local out = {}
  for item in (text or ''):gmatch('[^,%s]+') do
    table.insert(out, item)
  end
  return out
end

--- Open `path` in a normal editor window, never in the chat's transcript or input window: the last window the
--- user edited in if it still shows a file, else a new window above everything.
function M.edit_in_editor_window(chat, path)
  local function usable(win)
    if not vim.api.nvim_win_is_valid(win) or win == chat.win or win == chat.input_win then
      return false
    end
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return false -- a float
    end
    local buf = vim.api.nvim_win_get_buf(win)
    return vim.bo[buf].buftype == '' and not vim.b[buf].agent_chat and not vim.b[buf].agent_input
  end
  local target
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and usable(previous) then
    target = previous
  else
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if usable(win) then
        target = win
        break
      end
    end
  end
  vim.cmd('stopinsert') -- the form was started from the chat's input, in insert mode
  if target then
    vim.api.nvim_set_current_win(target)
  else
    vim.cmd('topleft split')
  end
  vim.cmd.edit(vim.fn.fnameescape(path))
end

--- :AgentNewAgent[!] — a short form (name, purpose, tools, model) → agent/_agents/create → opens the new file.
--- With ! the profile goes to the user config dir instead of the workspace.
function M.new_agent(chat, cl, user_scope)
  local form = { scope = user_scope and 'user' or 'workspace', cwd = chat.root }
  local function create()
    client.call(cl, 'agent/_agents/create', form, function(result)
      if result and type(result.path) == 'string' then
        M.edit_in_editor_window(chat, result.path)
        vim.notify(('agent: created the %s profile; :AgentMode %s uses it'):format(result.name, result.name), vim.log.levels.INFO)
        vim.api.nvim_exec_autocmds('User', { pattern = 'AgentProfileCreated', modeline = false, data = result })
      end
    end)
  end
  local function ask_model()
    client.request(cl, 'agent/_models/list', vim.empty_dict(), function(err, result)
      local items = { { label = 'the session\'s model (default)' } }
      for _, m in ipairs(not err and result and result.models or {}) do
        table.insert(items, { label = m.name, model = m.name })
      end
      vim.ui.select(items, {
        prompt = 'Model of ' .. form.name,
        kind = 'agent_new_model',
        format_item = function(i)
          return i.label
        end,
      }, function(choice)
        if not choice then
          return
        end
        form.model = choice.model
        create()
      end)
    end)
  end
  local function ask_tools()
    vim.ui.select(M.TOOL_CHOICES, {
      prompt = 'Tools of ' .. form.name,
      kind = 'agent_new_tools',
      format_item = function(c)
        return c.label
      end,
    }, function(choice)
      if not choice then
        return
      end
      if choice.custom then
        vim.ui.input({ prompt = 'Tools (e.g. read_file, search_*): ' }, function(text)
          local tools = split_list(text)
          if #tools == 0 then
            return
          end
          form.tools = tools
          ask_model()
        end)
      else
        form.tools = choice.tools
        ask_model()
      end
    end)
  end
  vim.ui.input({ prompt = 'Agent name (letters, digits, -): ' }, function(name)
    name = name and vim.trim(name) or ''
    if name == '' then
      return
    end
    form.name = name
    vim.ui.input({ prompt = 'What is it for? ' }, function(purpose)
      purpose = purpose and vim.trim(purpose) or ''
      if purpose == '' then
        return
      end
      form.description = purpose
      ask_tools()
    end)
  end)
end

return M
