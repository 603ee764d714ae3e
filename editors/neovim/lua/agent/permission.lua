---@mod agent.permission Answers agent/session/request_permission. An approval never takes focus or keys by itself:
--- it waits, announced by a notice (agent.approval_notice) and the chat, until the user opens it on purpose
--- (:AgentReview, or the review key in the chat); only there do its keys answer. "Always" answers, which store a
--- rule, take a second yes.
local config = require('agent.config')
local render = require('agent.render')

local M = {}

function M.find(options, kind)
  for _, opt in ipairs(options) do
    if opt.kind == kind then
      return opt
    end
  end
end

local find = M.find

local function selected(opt)
  if not opt then
    return { outcome = { outcome = 'cancelled' } }
  end
  return { outcome = { outcome = 'selected', optionId = opt.optionId } }
end

function M.describe(tool_call)
  local title = tool_call.title or tool_call.toolCallId or 'a tool'
  local input = tool_call.rawInput
  if type(input) == 'table' then
    if input.command then
      return ('%s: %s'):format(title, input.command)
    end
  end
  return title
end
local describe = M.describe

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

--- The approvals waiting for an answer, oldest first (one per pending request); :AgentReview opens the first.
M.open_reviews = {}

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

--- "Always allow" and "Always reject" store a rule, so they take a second, deliberate key: `y` confirms, any other
--- key does not (the question stays open). Other answers need no confirmation.
---@return boolean
function M.confirm(opt, tc)
  local kind = opt and opt.kind
  if kind ~= 'allow_always' and kind ~= 'reject_always' then
    return true
  end
  local verb = kind == 'allow_always' and 'Always allow' or 'Always reject'
  local after = kind == 'allow_always' and 'runs without asking' or 'is rejected without asking'
  local tail = ('? A rule is stored: it %s from now on. y = yes, any other key = no '):format(after)
  -- One line that fits the message area: a longer one would end in a "Press ENTER" prompt.
  local room = math.max(10, (vim.v.echospace or vim.o.columns - 12) - vim.fn.strdisplaywidth(verb .. ' ' .. tail))
  local what = describe(tc or {})
  if vim.fn.strdisplaywidth(what) > room then
    what = vim.fn.strcharpart(what, 0, room - 1) .. '…'
  end
  vim.api.nvim_echo({ { verb .. ' ' .. what .. tail, 'WarningMsg' } }, false, {})
  local ok, key = pcall(vim.fn.getcharstr)
  vim.api.nvim_echo({ { '' } }, false, {})
  return ok and (key == 'y' or key == 'Y')
end

local function untrack(entry)
  for i, e in ipairs(M.open_reviews) do
    if e == entry then
      table.remove(M.open_reviews, i)
      break
    end
  end
  require('agent.approval_notice').refresh()
end

--- The diff tab of a file change (agent.review_diff), opened when the user asks; `entry.review` gets what they
--- changed.
local function diff_view(entry, item)
  local options = entry.params.options or {}
  entry.diff = true
  entry.open = function()
    if entry.tab and vim.api.nvim_tabpage_is_valid(entry.tab) then
      vim.api.nvim_set_current_tabpage(entry.tab)
      return
    end
    local view = require('agent.review_diff').open(entry.params, item, options, find, function(opt, changed)
      entry.review = changed
      entry.settle(opt)
    end)
    entry.view, entry.tab, entry.buf, entry.base_buf, entry.win = view, view.tab, view.buf, view.base_buf, view.win
  end
  entry.close = function()
    if entry.view then
      entry.view.answer(nil) -- closes the tab; its callback finds the entry settled already
    end
  end
end

--- vim.ui.select (telescope, snacks, dressing), opened when the user asks. Dismissing it leaves the question open.
local function select_view(entry)
  local options = entry.params.options or {}
  local tc = entry.params.toolCall or {}
  entry.open = function()
    vim.ui.select(options, {
      prompt = 'Agent wants to: ' .. describe(tc),
      kind = 'agent_permission',
      format_item = function(opt)
        return opt.name
      end,
    }, function(opt)
      if opt and M.confirm(opt, tc) then
        entry.settle(opt)
      end
    end)
  end
end

local function float_view(entry)
  local float = require('agent.review_float')
  entry.open = function()
    float.open(entry)
  end
  entry.close = function()
    float.close(entry)
  end
end

--- A pending approval: announced (notice, chat), answered only from its own review. `done(option)` once.
local function track(params, done)
  local tc = params.toolCall or {}
  local entry = { params = params, session_id = params.sessionId, title = describe(tc) }
  entry.settle = function(opt)
    if entry.settled then
      return
    end
    entry.settled = true
    if entry.close then
      entry.close()
    end
    untrack(entry)
    done(opt)
  end
  --- Answer by option kind (scripting and tests); nil cancels.
  entry.answer = function(kind)
    entry.settle(kind and find(params.options or {}, kind) or nil)
  end
  local item = reviewable(tc)
  if config.options.approval_ui == 'select' then
    select_view(entry)
  elseif item then
    diff_view(entry, item)
  else
    float_view(entry)
  end
  M.open_reviews[#M.open_reviews + 1] = entry
  require('agent.approval_notice').refresh()
  local data = { session_id = params.sessionId, title = entry.title }
  vim.api.nvim_exec_autocmds('User', { pattern = 'AgentApprovalWaiting', modeline = false, data = data })
  return entry
end

--- Open a waiting approval and move into it (the user asked: :AgentReview, the chat's review key). The oldest when
--- `entry` is nil. Returns the entry, or nil when none waits.
function M.review(entry)
  entry = entry or M.open_reviews[1]
  if not entry then
    vim.notify('agent: no approval is waiting', vim.log.levels.INFO)
    return nil
  end
  entry.open()
  require('agent.approval_notice').refresh()
  return entry
end

--- Cancel the approvals a session still waits for (its turn ended or was stopped): their windows and tabs close.
function M.cancel_session(session_id)
  for _, entry in ipairs(vim.list_slice(M.open_reviews, 1, #M.open_reviews)) do
    if session_id == nil or entry.session_id == session_id then
      entry.settle(nil)
    end
  end
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
  local entry
  local choice = wait_for(function(done)
    entry = track(params, done)
  end)
  chat.awaiting(params.sessionId, tc, false, choice)
  local edited = entry.review and ' (as you reviewed it)' or ''
  chat.note(params.sessionId, describe(tc) .. ': ' .. (choice and choice.name or 'cancelled') .. edited)
  local answer = selected(choice)
  if entry.review then
    answer._meta = { review = entry.review }
  end
  return answer
end

return M
