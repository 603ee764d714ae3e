---@mod agent.chat The chat buffer (one per workspace root): streamed answers, folded reasoning, tool blocks, input.
local config = require('agent.config')
local client = require('agent.client')
local render = require('agent.render')

local M = {}

local ns = vim.api.nvim_create_namespace('agent_chat')

---@type table<integer, table> chat state by LSP client id
M.by_client = {}
---@type table<string, table> chat state by session id
M.by_session = {}

local function valid_buf(b)
  return b and vim.api.nvim_buf_is_valid(b)
end

local function valid_win(w)
  return w and vim.api.nvim_win_is_valid(w)
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

-- Buffer writing -------------------------------------------------------------------------------------------

local function edit(chat, fn)
  local buf = chat.buf
  if not valid_buf(buf) then
    return
  end
  vim.bo[buf].modifiable = true
  local ok, err = pcall(fn, buf)
  vim.bo[buf].modifiable = false
  if not ok then
    vim.notify('agent: chat render failed: ' .. tostring(err), vim.log.levels.WARN)
  end
  -- Keep following the answer in windows whose cursor sits on the last line.
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if win ~= vim.api.nvim_get_current_win() or chat.follow then
      pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
    end
  end
end

local function is_empty(buf)
  return vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ''
end

local function append_lines(chat, lines)
  edit(chat, function(buf)
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    else
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, lines)
    end
  end)
end

--- Continue the last line with streamed text; new lines get `prefix`.
local function append_stream(chat, text, prefix)
  edit(chat, function(buf)
    local last = vim.api.nvim_buf_line_count(buf)
    local current = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
    local pieces = vim.split(text, '\n', { plain = true })
    pieces[1] = current .. pieces[1]
    for i = 2, #pieces do
      pieces[i] = (prefix or '') .. pieces[i]
    end
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, pieces)
  end)
end

--- Close the folds of finished reasoning and tool output (a fold created under the cursor starts open).
local function close_folds(chat)
  if not config.options.fold_thinking or not valid_buf(chat.buf) or #chat.to_close == 0 then
    return
  end
  local rows = {}
  for _, item in ipairs(chat.to_close) do
    local ok, pos = pcall(vim.api.nvim_buf_get_extmark_by_id, chat.buf, ns, item.mark, {})
    if ok and pos[1] then
      table.insert(rows, pos[1] + 1 + item.offset)
    end
  end
  chat.to_close = {}
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    if vim.wo[win].foldmethod == 'expr' then
      vim.api.nvim_win_call(win, function()
        for _, row in ipairs(rows) do
          if vim.fn.foldlevel(row) > 0 and vim.fn.foldclosed(row) == -1 then
            vim.cmd(('silent! %dfoldclose'):format(row))
          end
        end
      end)
    end
  end
end

local function fold_later(chat, offset)
  local buf = chat.buf
  local row = vim.api.nvim_buf_line_count(buf) - 1
  local mark = vim.api.nvim_buf_set_extmark(buf, ns, row, 0, { right_gravity = false })
  table.insert(chat.to_close, { mark = mark, offset = offset or 0 })
end

--- Start a block of `mode` ('text', 'thought', 'tool', 'note'): separate it from the previous one.
local function begin(chat, mode, role)
  role = role or 'agent'
  if chat.role ~= role then
    local header = role == 'user' and '## You' or '## Agent'
    if valid_buf(chat.buf) and is_empty(chat.buf) then
      append_lines(chat, { header, '' })
    else
      append_lines(chat, { '', header, '' })
    end
    chat.role, chat.mode = role, 'start'
  end
  if chat.mode == mode and mode ~= 'tool' and mode ~= 'note' then
    return false
  end
  if chat.mode ~= 'start' then
    append_lines(chat, { '', '' })
  end
  close_folds(chat)
  chat.mode = mode
  if mode == 'thought' then
    fold_later(chat)
  end
  return true
end

-- Rendering updates ----------------------------------------------------------------------------------------

local function set_block(chat, block, lines)
  edit(chat, function(buf)
    if block.mark then
      local pos = vim.api.nvim_buf_get_extmark_by_id(buf, ns, block.mark, {})
      local row = pos[1]
      vim.api.nvim_buf_set_lines(buf, row, row + block.nlines, false, lines)
    else
      local last = vim.api.nvim_buf_line_count(buf)
      vim.api.nvim_buf_set_lines(buf, last - 1, last, false, lines) -- replaces the empty line begin() left
      block.mark = vim.api.nvim_buf_set_extmark(buf, ns, last - 1, 0, { right_gravity = false })
    end
    block.nlines = #lines
  end)
end

local function on_tool(chat, u)
  local block = chat.tools[u.toolCallId]
  if not block then
    block = { data = {} }
    chat.tools[u.toolCallId] = block
    begin(chat, 'tool')
  end
  for k, v in pairs(u) do
    if k ~= 'sessionUpdate' and v ~= vim.NIL then
      block.data[k] = v
    end
  end
  local lines = render.tool_lines(block.data, config.options.tool_result_lines)
  set_block(chat, block, lines)
  if #lines > 1 and not block.folded then
    block.folded = true
    table.insert(chat.to_close, { mark = block.mark, offset = 1 })
  end
end

local function on_plan(chat, u)
  if not chat.plan then
    chat.plan = {}
    begin(chat, 'tool')
  end
  set_block(chat, chat.plan, render.plan_lines(u.entries))
end

local function set_winbar(chat)
  if not valid_win(chat.win) then
    return
  end
  local parts = { 'agent' }
  if chat.model then
    table.insert(parts, chat.model)
  end
  if chat.usage and chat.usage.size and chat.usage.size > 0 then
    table.insert(parts, ('context %d%% (%d/%d)'):format(math.floor(100 * chat.usage.used / chat.usage.size), chat.usage.used, chat.usage.size))
  end
  if chat.busy then
    table.insert(parts, '● working  (:AgentStop)')
  end
  vim.wo[chat.win].winbar = (table.concat(parts, ' · '):gsub('%%', '%%%%'))
end

local function on_update(chat, u)
  local kind = u.sessionUpdate
  if kind == 'agent_message_chunk' or kind == 'agent_thought_chunk' or kind == 'user_message_chunk' then
    local text = render.content_text(u.content)
    if not text then
      return
    end
    local thought = kind == 'agent_thought_chunk'
    local role = kind == 'user_message_chunk' and 'user' or 'agent'
    local prefix = thought and render.THOUGHT or ''
    if begin(chat, thought and 'thought' or 'text', role) and thought then
      append_stream(chat, render.THOUGHT)
    end
    append_stream(chat, text, prefix)
  elseif kind == 'tool_call' or kind == 'tool_call_update' then
    on_tool(chat, u)
  elseif kind == 'plan' then
    on_plan(chat, u)
  elseif kind == 'usage_update' then
    chat.usage = u
    set_winbar(chat)
  end
end

-- Chat state and windows -----------------------------------------------------------------------------------

local function new_buffer(chat)
  local buf = vim.api.nvim_create_buf(false, true)
  local name = 'agent://chat/' .. vim.fs.basename(chat.root)
  if vim.fn.bufexists(name) == 1 then
    name = name .. '-' .. chat.client_id
  end
  vim.api.nvim_buf_set_name(buf, name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  vim.b[buf].agent_chat = true
  return buf
end

local function map(buf, mode, lhs, fn, desc)
  if lhs then
    vim.keymap.set(mode, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
end

local function reset(chat)
  chat.role, chat.mode, chat.tools, chat.plan, chat.to_close = nil, nil, {}, nil, {}
  if valid_buf(chat.buf) then
    edit(chat, function(buf)
      vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    end)
  end
end

--- The chat of a client, created on first use.
function M.get(st)
  local chat = M.by_client[st.id]
  if not chat then
    chat = { client_id = st.id, root = st.root, tools = {}, busy = false, to_close = {} }
    M.by_client[st.id] = chat
  end
  if not valid_buf(chat.buf) then
    chat.buf = new_buffer(chat)
    chat.role, chat.mode, chat.tools, chat.plan = nil, nil, {}, nil
    local keys = config.options.keymaps
    map(chat.buf, 'n', keys.stop, function() M.stop(chat) end, 'agent: stop the turn')
    map(chat.buf, 'n', keys.close, function() M.close(chat) end, 'agent: close the chat')
  end
  return chat
end

local function setup_window(win, fold)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = 'no'
  if fold then
    vim.wo[win].foldmethod = 'expr'
    vim.wo[win].foldexpr = "v:lua.require'agent.render'.foldexpr(v:lnum)"
    vim.wo[win].foldtext = "v:lua.require'agent.render'.foldtext()"
    vim.wo[win].foldlevel = 0
    vim.wo[win].foldminlines = 0 -- a one-line thought folds too
    vim.wo[win].foldenable = true
  end
end

local function input_buffer(chat)
  if valid_buf(chat.input_buf) then
    return chat.input_buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.b[buf].agent_input = true
  pcall(vim.api.nvim_buf_set_name, buf, 'agent://input/' .. vim.fs.basename(chat.root) .. '-' .. chat.client_id)
  local keys = config.options.keymaps
  local function send()
    local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'))
    if text == '' then
      return
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    vim.cmd('stopinsert')
    M.send(chat, { { type = 'text', text = text } })
  end
  map(buf, 'n', keys.send, send, 'agent: send the message')
  map(buf, 'i', keys.send_insert, send, 'agent: send the message')
  map(buf, 'n', keys.stop, function() M.stop(chat) end, 'agent: stop the turn')
  map(buf, 'n', keys.close, function() M.close(chat) end, 'agent: close the chat')
  chat.input_buf = buf
  return buf
end

--- Show the chat (and its input window); focus the input.
function M.open(chat, focus_input)
  local opts = config.options
  if not valid_win(chat.win) then
    if opts.layout == 'current' then
      chat.win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(chat.win, chat.buf)
    else
      local cmd = opts.layout == 'below' and ('botright %dsplit'):format(opts.height) or ('botright %dvsplit'):format(opts.width)
      vim.cmd(cmd)
      chat.win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(chat.win, chat.buf)
    end
    setup_window(chat.win, opts.fold_thinking)
  end
  if not valid_win(chat.input_win) then
    vim.api.nvim_set_current_win(chat.win)
    vim.cmd(('belowright %dsplit'):format(opts.input_height))
    chat.input_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(chat.input_win, input_buffer(chat))
    setup_window(chat.input_win, false)
    vim.wo[chat.input_win].winbar = ('message · ' .. (opts.keymaps.send or '') .. ' sends'):gsub('%%', '%%%%')
    vim.wo[chat.input_win].winfixheight = true
  end
  set_winbar(chat)
  vim.api.nvim_set_current_win(focus_input == false and chat.win or chat.input_win)
end

function M.close(chat)
  for _, w in ipairs({ chat.input_win, chat.win }) do
    if valid_win(w) and #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
end

--- Append an italic note line (stop reasons, approvals, errors) to the chat of a session.
function M.note(session_id, text)
  local chat = type(session_id) == 'table' and session_id or M.by_session[session_id]
  if not chat then
    return
  end
  begin(chat, 'note')
  append_stream(chat, '_[' .. text .. ']_')
end

local function with_session(chat, cl, fn)
  if chat.session_id then
    return fn()
  end
  client.call(cl, 'agent/session/new', { cwd = chat.root, mcpServers = {} }, function(result)
    if result then
      chat.session_id = result.sessionId
      M.by_session[chat.session_id] = chat
      fn()
    end
  end)
end

--- Send a prompt (a list of ACP content blocks) in this chat.
function M.send(chat, blocks)
  if chat.busy then
    vim.notify('agent: a turn is still running (:AgentStop to cancel it)', vim.log.levels.WARN)
    return
  end
  local cl = client.get(chat.client_id)
  if not cl then
    vim.notify('agent: the server is not running', vim.log.levels.ERROR)
    return
  end
  chat.busy = true
  chat.last_prompt = blocks
  set_winbar(chat)
  with_session(chat, cl, function()
    chat.plan = nil
    begin(chat, 'text', 'user')
    append_stream(chat, render.prompt_text(blocks))
    begin(chat, 'start', 'agent')
    local params = { sessionId = chat.session_id, prompt = blocks }
    client.request(cl, 'agent/session/prompt', params, function(err, result)
      chat.busy = false
      set_winbar(chat)
      close_folds(chat)
      local reason
      if err then
        reason = 'error'
        M.note(chat, 'error: ' .. tostring(err.message))
      else
        reason = result and result.stopReason or 'end_turn'
        if reason ~= 'end_turn' then
          M.note(chat, 'stopped: ' .. reason)
        end
      end
      chat.last_stop = reason
      fire('AgentTurnDone', { session_id = chat.session_id, stop_reason = reason, error = err and err.message })
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
  return true
end

--- Replace the chat with a stored session: agent/session/load replays it as updates.
function M.load(chat, session)
  local cl = client.get(chat.client_id)
  if not cl then
    return
  end
  if chat.session_id then
    M.by_session[chat.session_id] = nil
  end
  reset(chat)
  chat.session_id = session.sessionId
  M.by_session[chat.session_id] = chat
  local params = { sessionId = session.sessionId, cwd = chat.root, mcpServers = {} }
  client.call(cl, 'agent/session/load', params, function(result)
    close_folds(chat)
    if result then
      M.note(chat, 'resumed: ' .. (session.title or session.sessionId))
    end
    fire('AgentSessionLoaded', { session_id = session.sessionId, ok = result ~= nil })
  end)
end

--- Start a fresh session in this chat.
function M.new_session(chat)
  if chat.session_id then
    M.by_session[chat.session_id] = nil
  end
  chat.session_id = nil
  reset(chat)
end

-- Handlers --------------------------------------------------------------------------------------------------

function M.on_update(_, params)
  local chat = params and M.by_session[params.sessionId]
  if chat and type(params.update) == 'table' then
    on_update(chat, params.update)
  end
end

function M.on_client_exit(client_id)
  local chat = M.by_client[client_id]
  if not chat then
    return
  end
  if chat.busy then
    chat.busy = false
    M.note(chat, 'the server stopped')
  end
  if chat.session_id then
    M.by_session[chat.session_id] = nil
  end
  M.by_client[client_id] = nil
end

return M
