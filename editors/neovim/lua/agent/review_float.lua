---@mod agent.review_float The review window of a tool call (a command, or a file change with review_diff = false):
--- a float with the exact change, opened only when the user asks for it (:AgentReview) and entered then, so its keys
--- answer only there. Leaving it hides it (the question stays open; the notice says so again).
local config = require('agent.config')
local hints = require('agent.hints')

local M = {}

-- In order of importance: when the hints do not fit the float's width, the first ones stay in its bottom border.
M.KEYS = {
  { key = 'a', kind = 'allow_once', label = 'allow', short = 'allow' },
  { key = 'r', kind = 'reject_once', label = 'reject', short = 'reject' },
  { key = 's', id = 'allow_session', label = 'allow this session', short = 'session' },
  { key = 'A', kind = 'allow_always', label = 'always allow', short = 'always' },
  { key = 'R', kind = 'reject_always', label = 'always reject', short = 'never' },
}

local function describe(tc)
  return require('agent.permission').describe(tc)
end

--- The options offered, with their keys; q rejects too.
local function key_items(options)
  local permission = require('agent.permission')
  local items, present = {}, {}
  for _, k in ipairs(M.KEYS) do
    local opt = k.id and permission.find_id(options, k.id) or (not k.id and permission.find(options, k.kind))
    if opt then
      present[#present + 1] = { k = k, opt = opt }
      items[#items + 1] = k
    end
  end
  items[#items + 1] = { key = 'q', label = 'reject', short = 'reject' }
  return items, present
end

--- The buffer: why it asks, then the change; keys that do not fit the border are listed under it.
local function fill(entry, width, items)
  local permission = require('agent.permission')
  local tc = entry.params.toolCall or {}
  local lines, ft = permission.review_lines(tc)
  lines = vim.list_extend(permission.why_lines(tc), lines)
  local has_footer = vim.fn.has('nvim-0.10') == 1
  local key_rows, short = hints.rows(items, width - 2)
  local extra = has_footer and { unpack(key_rows, 2) } or key_rows
  if #extra > 0 then
    lines[#lines + 1] = ''
    for _, row in ipairs(extra) do
      lines[#lines + 1] = hints.join(row, short)
    end
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'hide' -- leaving the window hides it; the buffer goes when the question is answered
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = ft
  pcall(vim.api.nvim_buf_set_name, buf, 'agent://approval/' .. tostring(tc.toolCallId or buf))
  local footer = {}
  for i, k in ipairs(key_rows[1]) do
    footer[#footer + 1] = { (i == 1 and ' ' or '  ') .. k.key, 'AgentApprovalKey' }
    footer[#footer + 1] = { ' ' .. (short and k.short or k.label), 'Normal' }
  end
  footer[#footer + 1] = { ' ', 'Normal' }
  return buf, lines, has_footer and footer or nil
end

--- Where the float goes: beside the chat, not over it, so the conversation stays readable.
local function geometry(entry, items)
  local chat = require('agent.chat').by_session[entry.params.sessionId]
  local cols, rows = vim.o.columns, vim.o.lines
  local reserved = 0
  if chat and chat.win and vim.api.nvim_win_is_valid(chat.win) and config.options.layout == 'right' then
    reserved = vim.api.nvim_win_get_width(chat.win) + 1
  end
  local avail = math.max(30, cols - reserved - 4)
  local width = math.min(math.max(50, vim.fn.strdisplaywidth(hints.join(items, false)) + 2), avail)
  local permission = require('agent.permission')
  local tc = entry.params.toolCall or {}
  local lines = vim.list_extend(permission.why_lines(tc), (permission.review_lines(tc)))
  for _, l in ipairs(lines) do
    width = math.max(width, math.min(vim.fn.strdisplaywidth(l) + 2, avail))
  end
  return math.min(width, avail), reserved, cols, rows
end

local function set_keys(entry, buf, present)
  local permission = require('agent.permission')
  local tc = entry.params.toolCall or {}
  for _, p in ipairs(present) do
    vim.keymap.set('n', p.k.key, function()
      -- "Always" answers store a rule: they take a second, deliberate yes.
      if permission.confirm(p.opt, tc) then
        entry.settle(p.opt)
      end
    end, { buffer = buf, nowait = true, desc = 'agent: ' .. p.k.label })
  end
  vim.keymap.set('n', 'q', function()
    entry.settle(permission.find(entry.params.options or {}, 'reject_once'))
  end, { buffer = buf, nowait = true, desc = 'agent: reject' })
end

local function watch(entry, buf)
  -- Typed text never lands here (its text is the exact change that will be made).
  vim.api.nvim_create_autocmd('InsertEnter', {
    buffer = buf,
    callback = function()
      vim.schedule(function()
        vim.cmd('stopinsert')
      end)
    end,
  })
  -- Leaving it (to the chat, to the code) hides it; :AgentReview shows it again. Nothing is answered.
  vim.api.nvim_create_autocmd('WinLeave', {
    buffer = buf,
    callback = function()
      local win = entry.win
      vim.schedule(function()
        if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_get_current_win() ~= win then
          pcall(vim.api.nvim_win_close, win, true)
        end
        require('agent.approval_notice').refresh()
      end)
    end,
  })
  -- Wiped some other way (:bwipe): the call is cancelled, never left hanging.
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      vim.schedule(function()
        entry.settle(nil)
      end)
    end,
  })
end

--- Show the review of `entry` and move the cursor into it (the user asked for it: :AgentReview).
function M.open(entry)
  if entry.win and vim.api.nvim_win_is_valid(entry.win) then
    vim.api.nvim_set_current_win(entry.win)
    return
  end
  local tc = entry.params.toolCall or {}
  local items, present = key_items(entry.params.options or {})
  local width, reserved, cols, rows = geometry(entry, items)
  if not (entry.buf and vim.api.nvim_buf_is_valid(entry.buf)) then
    local buf, lines, footer = fill(entry, width, items)
    entry.buf, entry.nlines, entry.footer = buf, #lines, footer
    set_keys(entry, buf, present)
    watch(entry, buf)
  end
  local height = math.max(3, math.min(entry.nlines, rows - 8))
  local win_opts = {
    relative = 'editor',
    row = math.max(1, math.floor((rows - height) / 2) - 2),
    col = math.max(0, math.floor((cols - reserved - width) / 2)),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    title = ' ' .. describe(tc) .. ' ',
    title_pos = 'center',
  }
  if entry.footer then
    win_opts.footer = entry.footer
    win_opts.footer_pos = 'center'
  end
  entry.win = vim.api.nvim_open_win(entry.buf, true, win_opts)
  vim.wo[entry.win].wrap = false
  vim.wo[entry.win].cursorline = true
  vim.cmd('stopinsert') -- :AgentReview from insert mode (<C-o>): the review's keys are normal-mode keys
end

--- Close the window and drop the buffer (the question was answered or cancelled).
function M.close(entry)
  local buf = entry.buf
  entry.buf = nil
  if entry.win and vim.api.nvim_win_is_valid(entry.win) then
    pcall(vim.api.nvim_win_close, entry.win, true)
  end
  if buf and vim.api.nvim_buf_is_valid(buf) then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

return M
