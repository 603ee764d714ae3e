---@mod agent.chat The chat buffer (one per workspace root): streamed answers, folded reasoning, tool blocks, input.
local config = require('agent.config')
local client = require('agent.client')
local render = require('agent.render')
local highlight = require('agent.highlight')

local M = {}

local ns = vim.api.nvim_create_namespace('agent_chat')
local ns_hl = vim.api.nvim_create_namespace('agent_chat_hl')
local ns_help = vim.api.nvim_create_namespace('agent_chat_help')

--- What an empty chat shows (virtual lines: not part of the conversation).
M.HELP = {
  'Type a message below and press <CR> (normal mode) or <C-s> (insert mode) to send it.',
  ":'<,'>AgentAsk asks about a selection; @path (<C-x><C-u> completes), #buffer, #diagnostics, #image file.png attach context; /command<C-x><C-u> runs your prompt files.",
  ':AgentSessions resumes a stored session, :AgentModel picks the model, :AgentStop (<C-c>) stops a turn.',
  ':AgentMode picks the mode (code, ask, plan, ...), :AgentCheckpoints reviews or undoes what a turn changed.',
  'Tool calls that change something ask first, without taking your keys: :AgentReview (ga here) shows the diff or the command to answer.',
}

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

local function show_help(chat)
  local buf = chat.buf
  vim.api.nvim_buf_clear_namespace(buf, ns_help, 0, -1)
  if vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == '' then
    local lines = vim.tbl_map(function(l)
      return { { l, 'AgentHelp' } }
    end, M.HELP)
    vim.api.nvim_buf_set_extmark(buf, ns_help, 0, 0, { virt_lines = lines })
  end
end

--- Windows showing the chat whose cursor is on its last line: they follow the answer as it grows.
local function following(chat)
  local out = {}
  local last = vim.api.nvim_buf_line_count(chat.buf)
  for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
    if chat.follow or vim.api.nvim_win_get_cursor(win)[1] >= last then
      table.insert(out, win)
    end
  end
  chat.follow = false
  return out
end

local function to_end(chat, wins)
  local last = vim.api.nvim_buf_line_count(chat.buf)
  for _, win in ipairs(wins) do
    if valid_win(win) then
      pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
    end
  end
end

local function edit(chat, fn)
  local buf = chat.buf
  if not valid_buf(buf) then
    return
  end
  -- A window whose cursor the user moved up stays where it is (scroll back while an answer streams); the others,
  -- and every window after chat.follow is set (a prompt was just sent), follow the new text.
  local wins = following(chat)
  vim.bo[buf].modifiable = true
  local ok, err = pcall(fn, buf)
  vim.bo[buf].modifiable = false
  if not ok then
    vim.notify('agent: chat render failed: ' .. tostring(err), vim.log.levels.WARN)
  end
  show_help(chat)
  to_end(chat, wins)
end

--- Move every chat window to the newest line, and keep following from there.
function M.scroll_to_end(chat)
  if valid_buf(chat.buf) then
    to_end(chat, vim.fn.win_findbuf(chat.buf))
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

--- Highlights of a tool block: the header by status, diff lines by sign.
local function highlight_block(buf, row, lines, status)
  vim.api.nvim_buf_clear_namespace(buf, ns_hl, row, row + #lines)
  if not status then
    return
  end
  vim.api.nvim_buf_set_extmark(buf, ns_hl, row, 0, { end_col = #lines[1], hl_group = highlight.status_group(status) })
  for i = 2, #lines do
    local body = lines[i]:sub(#render.DETAIL + 1)
    local group = vim.startswith(lines[i], render.DETAIL) and highlight.diff_group(body)
    if group then
      vim.api.nvim_buf_set_extmark(buf, ns_hl, row + i - 1, #render.DETAIL, { end_col = #lines[i], hl_group = group })
    end
  end
end

local function set_block(chat, block, lines, status)
  edit(chat, function(buf)
    local row
    if block.mark then
      local pos = vim.api.nvim_buf_get_extmark_by_id(buf, ns, block.mark, {})
      row = pos[1]
      vim.api.nvim_buf_set_lines(buf, row, row + block.nlines, false, lines)
    else
      local last = vim.api.nvim_buf_line_count(buf)
      row = last - 1
      vim.api.nvim_buf_set_lines(buf, last - 1, last, false, lines) -- replaces the empty line begin() left
      block.mark = vim.api.nvim_buf_set_extmark(buf, ns, last - 1, 0, { right_gravity = false })
    end
    block.nlines = #lines
    highlight_block(buf, row, lines, status)
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
  if u.status and u.status ~= 'pending' then
    block.data.awaiting = nil
  end
  local lines, status = render.tool_lines(block.data, config.options.tool_result_lines)
  set_block(chat, block, lines, status)
  if #lines > 1 and not block.folded and not block.data.awaiting then -- the change asked about stays open
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

--- The display name of the chat's current mode (agent profile), or nil before a session told it.
function M.mode_name(chat)
  local modes = chat.modes
  if type(modes) ~= 'table' or type(modes.currentModeId) ~= 'string' then
    return nil
  end
  for _, m in ipairs(type(modes.availableModes) == 'table' and modes.availableModes or {}) do
    if m.id == modes.currentModeId and type(m.name) == 'string' then
      return m.name
    end
  end
  return modes.currentModeId
end

--- Remember the modes a session/new or session/load answered with (ACP's SessionModeState).
function M.set_modes(chat, modes)
  if type(modes) == 'table' and type(modes.currentModeId) == 'string' then
    chat.modes = modes
  end
end

local function set_winbar(chat)
  if not valid_win(chat.win) then
    return
  end
  local parts = { 'agent' }
  if chat.model then
    table.insert(parts, chat.model)
  end
  local mode = M.mode_name(chat)
  if mode then
    table.insert(parts, 'mode ' .. mode)
  end
  if chat.title then
    table.insert(parts, chat.title)
  end
  if chat.usage and chat.usage.size and chat.usage.size > 0 then
    local usage = ('context %d%% (%d/%d)'):format(math.floor(100 * chat.usage.used / chat.usage.size), chat.usage.used, chat.usage.size)
    -- The rules files' share (AGENTS.md, ...), and a mark when the window forced the server to cut some.
    local rules = vim.tbl_get(chat.usage, '_meta', 'agentServer', 'rules')
    if type(rules) == 'table' and type(rules.tokens) == 'number' then
      local cut = type(rules.cut) == 'table' and #rules.cut > 0 and ', cut' or ''
      usage = usage .. (' · rules %d%s'):format(rules.tokens, cut)
    end
    table.insert(parts, usage)
  end
  if chat.progress then
    table.insert(parts, chat.progress)
  end
  if chat.busy and not client.is_ready(chat.client_id) then
    table.insert(parts, '◌ starting the agent…')
  elseif chat.waiting then
    local key = config.options.keymaps.review -- short: the bar is cut from the left when it is too long
    table.insert(parts, '? ' .. chat.waiting .. ' (' .. (key or ':AgentReview') .. ')')
  elseif chat.busy then
    table.insert(parts, '● working  (:AgentStop)')
  end
  vim.wo[chat.win].winbar = (table.concat(parts, ' · '):gsub('%%', '%%%%'))
end

--- Redraw the top bar (after a model switch, a resume, a new session, progress).
function M.refresh(chat)
  set_winbar(chat)
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
    -- A chunk with another message id starts a new message (two prompts in a row stay two in a replay).
    local message_id = type(u.messageId) == 'string' and u.messageId or nil
    if message_id and chat.role == role and chat.message_id and chat.message_id ~= message_id then
      chat.role = nil
    end
    chat.message_id = message_id
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
  elseif kind == 'current_mode_update' and type(u.currentModeId) == 'string' then
    chat.modes = chat.modes or { availableModes = {} }
    chat.modes.currentModeId = u.currentModeId
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
  highlight.markdown(buf)
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
      vim.api.nvim_buf_clear_namespace(buf, ns_hl, 0, -1)
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    end)
  end
end

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
  if not valid_buf(chat.buf) then
    chat.buf = new_buffer(chat)
    chat.role, chat.mode, chat.tools, chat.plan = nil, nil, {}, nil
    local keys = config.options.keymaps
    map(chat.buf, 'n', keys.stop, function() M.stop(chat) end, 'agent: stop the turn')
    map(chat.buf, 'n', keys.close, function() M.close(chat) end, 'agent: close the chat')
    map(chat.buf, 'n', keys.review, M.review, 'agent: open the waiting approval')
    show_help(chat)
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
  vim.b[buf].agent_root = chat.root
  vim.bo[buf].completefunc = "v:lua.require'agent.commands'.complete" -- /command or @path, then <C-x><C-u>
  pcall(vim.api.nvim_buf_set_name, buf, 'agent://input/' .. vim.fs.basename(chat.root) .. '-' .. chat.client_id)
  local keys = config.options.keymaps
  local function send()
    local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'))
    if text == '' then
      return
    end
    local blocks, problems = require('agent.mentions').blocks(text, chat.root, chat.origin_buf)
    if #problems > 0 then -- the message stays in the input, to fix and send again
      vim.notify('agent: ' .. table.concat(problems, '\n'), vim.log.levels.ERROR)
      return
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    M.send(chat, blocks) -- <C-s> keeps insert mode: the next message can be typed at once
  end
  --- Put text into the input (a prompt that could not be sent stays there to fix), cursor at its end.
  chat.set_input = function(text)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
    if valid_win(chat.input_win) then
      local last = vim.api.nvim_buf_line_count(buf)
      vim.api.nvim_win_set_cursor(chat.input_win, { last, #vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] })
    end
  end
  map(buf, 'n', keys.send, send, 'agent: send the message')
  map(buf, 'i', keys.send_insert, send, 'agent: send the message')
  map(buf, 'n', keys.stop, function() M.stop(chat) end, 'agent: stop the turn')
  map(buf, 'n', keys.close, function() M.close(chat) end, 'agent: close the chat')
  map(buf, 'n', keys.review, M.review, 'agent: open the waiting approval')
  chat.input_buf = buf
  return buf
end

--- Show the chat (and its input window); focus the input, in insert mode.
function M.open(chat, focus_input)
  local opts = config.options
  local cur = vim.api.nvim_get_current_buf()
  if not vim.b[cur].agent_chat and not vim.b[cur].agent_input then
    chat.origin_buf = cur -- what #buffer and #diagnostics refer to
  end
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
  if focus_input == false then
    vim.api.nvim_set_current_win(chat.win)
  else
    vim.api.nvim_set_current_win(chat.input_win)
    vim.cmd('startinsert!') -- ready to type
  end
end

function M.close(chat)
  for _, w in ipairs({ chat.input_win, chat.win }) do
    if valid_win(w) and #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
end

--- No LLM server answered: offer the built-in model (llm.provider = "embedded") in one action. The choice is
--- this client's `agentServer` settings, which the server pulls on workspace/didChangeConfiguration.
function M.offer_built_in_model(cl, chat, offer)
  if not offer.available then
    M.note(chat, 'no LLM server answered; for the built-in local model: ' .. tostring(offer.install))
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
    M.note(chat, 'using the built-in model: send your message again')
  end)
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
    M.by_session[chat.session_id] = chat
    M.set_modes(chat, result.modes)
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
local with_session = M.with_session

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
          M.note(chat, 'error: ' .. tostring(err.message))
          local offer = type(err.data) == 'table' and err.data.embedded or nil
          if type(offer) == 'table' then
            M.offer_built_in_model(cl, chat, offer)
          end
        else
          reason = result and result.stopReason or 'end_turn'
          if reason ~= 'end_turn' then
            M.note(chat, 'stopped: ' .. reason)
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
  chat.title = session.title ~= vim.NIL and session.title or nil
  M.by_session[chat.session_id] = chat
  set_winbar(chat)
  local params = { sessionId = session.sessionId, cwd = chat.root, mcpServers = {} }
  client.call(cl, 'agent/session/load', params, function(result)
    close_folds(chat)
    M.set_modes(chat, result and result.modes)
    local partial = chat.partial
    chat.partial = nil
    if result and partial then
      -- The server died mid-answer: that part was never stored, so the replay lacks it. Kept here, and said so.
      begin(chat, 'text', 'agent')
      append_stream(chat, table.concat(partial, '\n'))
      M.note(chat, 'the server stopped while answering: the part above was not saved, and the model will not see it')
    end
    if result then
      M.note(chat, 'resumed: ' .. (chat.title or session.sessionId))
    end
    M.scroll_to_end(chat) -- a resumed chat goes on at its end
    set_winbar(chat)
    fire('AgentSessionLoaded', { session_id = session.sessionId, ok = result ~= nil })
  end)
end

--- Start a fresh session in this chat.
function M.new_session(chat)
  if chat.session_id then
    M.by_session[chat.session_id] = nil
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

--- A permission request is open (waiting) or answered: the tool block shows what is asked about, the top bar says
--- a choice is pending, and a rejected call is remembered as such (shown neutral, not as a failure).
function M.awaiting(session_id, tool_call, waiting, choice)
  local chat = M.by_session[session_id]
  if not chat or type(tool_call) ~= 'table' or not tool_call.toolCallId then
    return
  end
  local u = vim.deepcopy(tool_call)
  u.awaiting = waiting or nil
  if not waiting and (not choice or vim.startswith(choice.kind or '', 'reject')) then
    u.rejected = choice and 'you rejected it' or 'cancelled'
  end
  if not waiting and chat.tools[u.toolCallId] then
    chat.tools[u.toolCallId].data.awaiting = nil
  end
  on_tool(chat, u)
  local block = chat.tools[u.toolCallId]
  if waiting and block and block.mark then
    -- The change asked about stays open in the chat (it may have been folded as a finished block's output).
    chat.to_close = vim.tbl_filter(function(item)
      return item.mark ~= block.mark
    end, chat.to_close)
    local row = vim.api.nvim_buf_get_extmark_by_id(chat.buf, ns, block.mark, {})[1]
    for _, win in ipairs(vim.fn.win_findbuf(chat.buf)) do
      if row and vim.wo[win].foldmethod == 'expr' then
        vim.api.nvim_win_call(win, function()
          vim.cmd(('silent! %d,%dfoldopen!'):format(row + 1, row + block.nlines))
        end)
      end
    end
  elseif block and block.mark and block.nlines > 1 then
    table.insert(chat.to_close, { mark = block.mark, offset = 1 }) -- folds again once the turn goes on
  end
  chat.waiting = waiting and 'approval waiting' or nil
  set_winbar(chat)
end

-- Handlers --------------------------------------------------------------------------------------------------

function M.on_update(_, params)
  local chat = params and M.by_session[params.sessionId]
  if chat and type(params.update) == 'table' then
    on_update(chat, params.update)
  end
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
  local chat = M.by_client[client_id]
  if not chat then
    return
  end
  M.by_client[client_id] = nil
  if chat.session_id then
    require('agent.permission').cancel_session(chat.session_id) -- nobody is left to hear the answer
  end
  if chat.busy then
    chat.busy = false
    chat.partial = partial_answer(chat)
    M.note(chat, 'the server stopped')
    fire('AgentTurnDone', { session_id = chat.session_id, stop_reason = 'error', error = 'the server stopped' })
  end
  if chat.session_id then
    M.by_session[chat.session_id] = nil
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
    M.note(chat, 'the server keeps stopping: not restarting it (see :checkhealth agent)')
    return
  end
  recent[#recent + 1] = now
  restarts[restart_root] = recent
  local st = client.ensure(restart_root)
  if not st then
    return
  end
  chat.client_id = st.id
  M.by_client[st.id] = chat
  M.note(chat, 'the server stopped; restarted it')
  local session_id = chat.session_id
  if session_id then
    M.by_session[session_id] = chat
    client.when_ready(st.id, function()
      M.load(chat, { sessionId = session_id, title = chat.title })
    end)
  end
  set_winbar(chat)
end

return M
