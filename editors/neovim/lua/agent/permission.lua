---@mod agent.permission Answers agent/session/request_permission: a review window with the diff or the command.
local config = require('agent.config')
local hints = require('agent.hints')
local render = require('agent.render')

local M = {}

local function find(options, kind)
  for _, opt in ipairs(options) do
    if opt.kind == kind then
      return opt
    end
  end
end

local function selected(opt)
  if not opt then
    return { outcome = { outcome = 'cancelled' } }
  end
  return { outcome = { outcome = 'selected', optionId = opt.optionId } }
end

local function describe(tool_call)
  local title = tool_call.title or tool_call.toolCallId or 'a tool'
  local input = tool_call.rawInput
  if type(input) == 'table' then
    if input.command then
      return ('%s: %s'):format(title, input.command)
    end
  end
  return title
end

--- Wait without blocking Neovim: server requests run in a coroutine (Neovim ≥ 0.10), so we yield; outside one we
--- fall back to vim.wait. `start(done)` opens the UI and calls done(choice) once.
local function wait_for(start)
  local co, is_main = coroutine.running()
  local done, choice, yielded = false, nil, false
  start(function(item)
    if done then
      return
    end
    done, choice = true, item
    if yielded then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end)
  if not done then
    if co and not is_main then
      yielded = true
      coroutine.yield()
    else
      vim.wait(24 * 3600 * 1000, function()
        return done
      end, 50)
    end
  end
  return choice
end

--- The lines the review window shows: what exactly will change or run. Also used for the chat's own record.
---@return string[] lines, string filetype
function M.review_lines(tool_call)
  local lines, ft = {}, 'markdown'
  local input = type(tool_call.rawInput) == 'table' and tool_call.rawInput or {}
  local has_diff = false
  local meta = type(tool_call._meta) == 'table' and tool_call._meta or {}
  local has_why = type(meta.why) == 'table' and #meta.why > 0
  for _, item in ipairs(type(tool_call.content) == 'table' and tool_call.content or {}) do
    if item.type == 'diff' then
      has_diff = true
      local path = vim.fn.fnamemodify(item.path or '', ':.')
      local new = item.oldText == nil or item.oldText == vim.NIL
      table.insert(lines, '--- ' .. (new and '/dev/null' or ('a/' .. path)))
      table.insert(lines, '+++ b/' .. path)
      local body = render.diff_lines(item)
      table.remove(body, 1) -- its own "diff path" header; the ---/+++ lines above say it
      if new then
        table.insert(lines, ('@@ -0,0 +1,%d @@ new file'):format(#body))
      end
      vim.list_extend(lines, body)
    elseif item.type == 'content' and type(item.content) == 'table' and item.content.type == 'text' then
      local text = item.content.text or ''
      -- The server repeats `_meta.why` in the content for clients that ignore _meta; we show it once, on top.
      if not (has_why and text:match('^Asked because:')) then
        vim.list_extend(lines, vim.split(text, '\n', { plain = true }))
      end
    end
  end
  if has_diff then
    ft = 'diff'
  elseif #lines == 0 and input.command then
    lines = { '$ ' .. tostring(input.command), '', 'in ' .. tostring(input.cwd or '(the workspace root)') }
  elseif #lines == 0 then
    lines = vim.split(vim.inspect(input), '\n', { plain = true })
    ft = 'lua'
  end
  return lines, ft
end

--- An option by its id (ACP has no kind for "this session": the server marks it by its optionId).
function M.find_id(options, id)
  for _, opt in ipairs(options) do
    if opt.optionId == id then
      return opt
    end
  end
end

--- Why the server asks (its `_meta.why`, one reason per command segment), as lines above the change.
---@return string[]
function M.why_lines(tool_call)
  local meta = type(tool_call._meta) == 'table' and tool_call._meta or {}
  local why = type(meta.why) == 'table' and meta.why or {}
  if #why == 0 then
    return {}
  end
  local lines = { 'Asks because:' }
  for _, reason in ipairs(why) do
    lines[#lines + 1] = '  - ' .. tostring(reason)
  end
  lines[#lines + 1] = ''
  return lines
end

-- In order of importance: when the hints do not fit the float's width, the first ones stay in its bottom border.
local KEYS = {
  { key = 'a', kind = 'allow_once', label = 'allow', short = 'allow' },
  { key = 'r', kind = 'reject_once', label = 'reject', short = 'reject' },
  { key = 's', id = 'allow_session', label = 'allow this session', short = 'session' },
  { key = 'A', kind = 'allow_always', label = 'always allow', short = 'always' },
  { key = 'R', kind = 'reject_always', label = 'always reject', short = 'never' },
}

--- The open review windows (one per pending request), for tests and :AgentApprove-like scripting.
M.open_reviews = {}

--- True while the user is typing something of their own (insert or command-line mode anywhere but an empty chat
--- input, which :AgentChat <prompt> leaves in insert mode): the review must not take those keys.
local function user_is_typing()
  local mode = vim.api.nvim_get_mode().mode
  if not mode:match('^[iRc]') then
    return false
  end
  local buf = vim.api.nvim_get_current_buf()
  if mode:match('^[iR]') and vim.b[buf].agent_input then
    return vim.trim(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')) ~= ''
  end
  return true
end

--- The one file change of a request the server offers for review (`_meta.review`), when the diff review is on.
local function reviewable(tc)
  if config.options.review_diff == false or type(tc._meta) ~= 'table' or type(tc._meta.review) ~= 'table' then
    return nil
  end
  local found
  for _, item in ipairs(type(tc.content) == 'table' and tc.content or {}) do
    if item.type == 'diff' then
      if found then
        return nil
      end
      found = item
    end
  end
  return found
end

--- A file change opens as a diff you can edit (agent.review_diff); `answered.review` gets what you changed. While
--- you are typing something of your own it waits (a new tab would take your keys) and opens once you are back in
--- normal mode.
local function review_as_diff(params, item, answered, done)
  local function open()
    local entry
    entry = require('agent.review_diff').open(params, item, params.options or {}, find, function(opt, changed)
      for i, e in ipairs(M.open_reviews) do
        if e == entry then
          table.remove(M.open_reviews, i)
          break
        end
      end
      answered.review = changed
      done(opt)
    end)
    M.open_reviews[#M.open_reviews + 1] = entry
  end
  if not user_is_typing() then
    return open()
  end
  vim.api.nvim_create_autocmd('ModeChanged', {
    pattern = '*:n',
    callback = function()
      if user_is_typing() then
        return
      end
      vim.schedule(open)
      return true
    end,
  })
end

--- A non-modal floating window with the change; keys a/A/r/R answer. The chat stays usable meanwhile
--- (<C-w>p goes back to it; scroll, read, come back).
local function review(params, done, answered)
  local tc = params.toolCall or {}
  local item = reviewable(tc)
  if item then
    return review_as_diff(params, item, answered, done)
  end
  local lines, ft = M.review_lines(tc)
  lines = vim.list_extend(M.why_lines(tc), lines)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = ft
  pcall(vim.api.nvim_buf_set_name, buf, 'agent://approval/' .. tostring(tc.toolCallId or buf))
  local items, present = {}, {}
  for _, k in ipairs(KEYS) do
    local opt = k.id and M.find_id(params.options or {}, k.id) or (not k.id and find(params.options or {}, k.kind))
    if opt then
      present[#present + 1] = { k = k, opt = opt }
      items[#items + 1] = k
    end
  end
  items[#items + 1] = { key = 'q', label = 'reject', short = 'reject' }

  -- Beside the chat, not over it, so the conversation stays readable.
  local chat = require('agent.chat').by_session[params.sessionId]
  local cols, rows = vim.o.columns, vim.o.lines
  local reserved = 0
  if chat and chat.win and vim.api.nvim_win_is_valid(chat.win) and config.options.layout == 'right' then
    reserved = vim.api.nvim_win_get_width(chat.win) + 1
  end
  local avail = math.max(30, cols - reserved - 4)
  local width = math.min(math.max(50, vim.fn.strdisplaywidth(hints.join(items, false)) + 2), avail)
  for _, l in ipairs(lines) do
    width = math.max(width, math.min(vim.fn.strdisplaywidth(l) + 2, avail))
  end
  width = math.min(width, avail)
  -- The border holds one row of keys (a space each side); the keys that do not fit are listed under the change.
  local has_footer = vim.fn.has('nvim-0.10') == 1
  local key_rows, short = hints.rows(items, width - 2)
  local footer = {}
  for i, k in ipairs(key_rows[1]) do
    footer[#footer + 1] = { (i == 1 and ' ' or '  ') .. k.key, 'AgentApprovalKey' }
    footer[#footer + 1] = { ' ' .. (short and k.short or k.label), 'Normal' }
  end
  footer[#footer + 1] = { ' ', 'Normal' }
  local extra = has_footer and { unpack(key_rows, 2) } or key_rows
  if #extra > 0 then
    vim.bo[buf].modifiable = true
    local tail = { '' }
    for _, row in ipairs(extra) do
      tail[#tail + 1] = hints.join(row, short)
    end
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, tail)
    vim.list_extend(lines, tail)
    vim.bo[buf].modifiable = false
  end
  local height = math.max(3, math.min(#lines, rows - 8))
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
  if has_footer then
    win_opts.footer = footer
    win_opts.footer_pos = 'center'
  end
  -- Focus it in normal mode (so a/A/r answer at once), unless the user is typing: then it waits beside the text and
  -- takes focus when they go back to normal mode.
  local typing = user_is_typing()
  local win = vim.api.nvim_open_win(buf, not typing, win_opts)
  vim.wo[win].wrap = false
  vim.wo[win].cursorline = true
  local entry = { buf = buf, win = win, params = params }
  M.open_reviews[#M.open_reviews + 1] = entry
  if typing then
    vim.api.nvim_create_autocmd('ModeChanged', {
      pattern = '*:n',
      callback = function()
        if not vim.api.nvim_win_is_valid(win) then
          return true
        end
        if user_is_typing() then
          return
        end
        vim.api.nvim_set_current_win(win)
        return true
      end,
    })
  else
    vim.cmd('stopinsert')
  end
  -- Typed text never lands here (its text is the exact change that will be made).
  vim.api.nvim_create_autocmd('InsertEnter', {
    buffer = buf,
    callback = function()
      vim.schedule(function()
        vim.cmd('stopinsert')
      end)
    end,
  })

  local function finish(opt)
    for i, e in ipairs(M.open_reviews) do
      if e == entry then
        table.remove(M.open_reviews, i)
        break
      end
    end
    if vim.api.nvim_win_is_valid(win) then
      pcall(vim.api.nvim_win_close, win, true)
    end
    done(opt)
  end
  entry.answer = function(kind)
    finish(kind and find(params.options or {}, kind) or nil)
  end
  for _, p in ipairs(present) do
    vim.keymap.set('n', p.k.key, function()
      finish(p.opt)
    end, { buffer = buf, nowait = true, desc = 'agent: ' .. p.k.label })
  end
  vim.keymap.set('n', 'q', function()
    finish(find(params.options or {}, 'reject_once'))
  end, { buffer = buf, nowait = true, desc = 'agent: reject' })
  -- Wiped some other way (:bwipe, :only): the call is cancelled, never left hanging.
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      vim.schedule(function()
        finish(nil)
      end)
    end,
  })
end

---@param params table RequestPermissionRequest
---@return table RequestPermissionResponse
function M.ask(params, _)
  local options = params.options or {}
  local chat = require('agent.chat')
  local policy = config.options.approval
  if policy == 'allow' then
    return selected(find(options, 'allow_once') or find(options, 'allow_always'))
  elseif policy == 'reject' then
    return selected(find(options, 'reject_once') or find(options, 'reject_always'))
  end
  local tc = params.toolCall or {}
  chat.awaiting(params.sessionId, tc, true)
  local choice
  local answered = {}
  if config.options.approval_ui == 'select' then
    choice = wait_for(function(done)
      vim.ui.select(options, {
        prompt = 'Agent wants to: ' .. describe(tc),
        kind = 'agent_permission',
        format_item = function(opt)
          return opt.name
        end,
      }, done)
    end)
  else
    choice = wait_for(function(done)
      review(params, done, answered)
    end)
  end
  chat.awaiting(params.sessionId, tc, false, choice)
  local edited = answered.review and ' (as you reviewed it)' or ''
  chat.note(params.sessionId, describe(tc) .. ': ' .. (choice and choice.name or 'cancelled') .. edited)
  local answer = selected(choice)
  if answered.review then
    answer._meta = { review = answered.review }
  end
  return answer
end

return M
