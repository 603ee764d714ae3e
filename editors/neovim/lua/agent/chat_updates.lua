---@mod agent.chat_updates Rendering a session's updates in its chat: message chunks, tool and plan blocks, approvals.
local config = require('agent.config')
local render = require('agent.render')
local highlight = require('agent.highlight')
local buffer = require('agent.chat_buffer')
local winbar = require('agent.chat_winbar')

local M = {}

local ns, ns_hl = buffer.ns, buffer.ns_hl
local edit, begin, append_stream = buffer.edit, buffer.begin, buffer.append_stream
local set_winbar = winbar.refresh

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

--- Render one session/update in the chat.
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
M.apply = on_update

--- A permission request is open (waiting) or answered: the tool block shows what is asked about, the top bar says
--- a choice is pending, and a rejected call is remembered as such (shown neutral, not as a failure).
function M.awaiting(chat, tool_call, waiting, choice)
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

return M
