---@mod agent.chat_buffer Writing into the chat buffer: its help, streamed text, blocks by role and mode, folds, follow.
local config = require('agent.config')
local highlight = require('agent.highlight')

local M = {}

local ns = vim.api.nvim_create_namespace('agent_chat')
local ns_hl = vim.api.nvim_create_namespace('agent_chat_hl')
local ns_help = vim.api.nvim_create_namespace('agent_chat_help')
M.ns, M.ns_hl = ns, ns_hl

--- What an empty chat shows (virtual lines: not part of the conversation).
M.HELP = {
  'Type a message below and press <CR> (normal mode) or <C-s> (insert mode) to send it.',
  ":'<,'>AgentAsk asks about a selection; @path (<C-x><C-u> completes), #buffer, #diagnostics, #image file.png attach context; /command<C-x><C-u> runs your prompt files.",
  ':AgentSessions resumes a stored session, :AgentModel picks the model, :AgentStop (<C-c>) stops a turn.',
  ':AgentMode picks the mode (code, ask, plan, ...), :AgentCheckpoints reviews or undoes what a turn changed.',
  'Tool calls that change something ask first, without taking your keys: :AgentReview (ga here) shows the diff or the command to answer.',
}


local function valid_buf(b)
  return b and vim.api.nvim_buf_is_valid(b)
end

local function valid_win(w)
  return w and vim.api.nvim_win_is_valid(w)
end
M.valid_buf, M.valid_win = valid_buf, valid_win

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

--- A new chat buffer (scratch, markdown, not modifiable but by this module).
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

--- Empty the chat: the next update starts it afresh.
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

--- Append an italic note line (stop reasons, approvals, errors) to a chat.
function M.note(chat, text)
  begin(chat, 'note')
  append_stream(chat, '_[' .. text .. ']_')
end

M.show_help, M.edit, M.append_stream, M.close_folds, M.begin = show_help, edit, append_stream, close_folds, begin
M.new_buffer, M.reset = new_buffer, reset

return M
