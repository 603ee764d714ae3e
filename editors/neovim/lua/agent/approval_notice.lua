---@mod agent.approval_notice The small notice that an approval waits: a float in the top-right corner that never
--- takes focus or keys (not focusable, never entered). It names the call and how to answer it on purpose
--- (:AgentReview, or the review key in the chat). Hidden while the user is in that approval's own review.
local config = require('agent.config')

local M = {}

local state = { buf = nil, win = nil, group = nil }

local function valid_win(w)
  return w and vim.api.nvim_win_is_valid(w)
end

local function close()
  if valid_win(state.win) then
    pcall(vim.api.nvim_win_close, state.win, true)
  end
  state.win = nil
end

--- How to answer, as the notice's second line says it.
function M.how_to_answer()
  local key = config.options.keymaps and config.options.keymaps.review
  return ':AgentReview' .. (key and (' (or ' .. key .. ' in the chat)') or '') .. ' to review and answer'
end

--- The entry the user is reviewing right now (its float is the current window, or its diff tab the current tab).
local function under_review(list)
  local win, tab = vim.api.nvim_get_current_win(), vim.api.nvim_get_current_tabpage()
  for _, e in ipairs(list) do
    if (e.win and e.win == win) or (e.tab and e.tab == tab) then
      return e
    end
  end
end

local function fit(text, width)
  if vim.fn.strdisplaywidth(text) <= width then
    return text
  end
  return vim.fn.strcharpart(text, 0, math.max(1, width - 1)) .. '…'
end

local function lines_for(list, max_width)
  local first = 'approval waiting: ' .. list[1].title
  local more = #list > 1 and (' (+%d more)'):format(#list - 1) or ''
  local hint = M.how_to_answer()
  local width = math.min(max_width, math.max(vim.fn.strdisplaywidth(first .. more), vim.fn.strdisplaywidth(hint)))
  return { fit(first, width - vim.fn.strdisplaywidth(more)) .. more, fit(hint, width) }, width
end

--- The row the notice starts at: below the tab line when one shows (it names the tabs; the notice must not hide them).
local function top_row()
  local tabs = #vim.api.nvim_list_tabpages()
  local stal = vim.o.showtabline
  return (stal == 2 or (stal == 1 and tabs > 1)) and 1 or 0
end

--- Show, update or hide the notice for the pending approvals (permission.open_reviews).
function M.refresh()
  local list = require('agent.permission').open_reviews
  if #list == 0 or under_review(list) then
    close()
    return
  end
  require('agent.highlight').define()
  local lines, width = lines_for(list, math.max(20, vim.o.columns - 6))
  if not (state.buf and vim.api.nvim_buf_is_valid(state.buf)) then
    state.buf = vim.api.nvim_create_buf(false, true)
    vim.bo[state.buf].bufhidden = 'hide'
    vim.b[state.buf].agent_notice = true
  end
  vim.bo[state.buf].modifiable = true
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, lines)
  vim.bo[state.buf].modifiable = false
  local ns = vim.api.nvim_create_namespace('agent_approval_notice')
  vim.api.nvim_buf_clear_namespace(state.buf, ns, 0, -1)
  vim.api.nvim_buf_set_extmark(state.buf, ns, 0, 0, { end_col = #lines[1], hl_group = 'AgentApprovalWaiting' })
  vim.api.nvim_buf_set_extmark(state.buf, ns, 1, 0, { end_col = #lines[2], hl_group = 'AgentApprovalKey' })
  local win_opts = {
    relative = 'editor',
    anchor = 'NE',
    row = top_row() + 1, -- the first row of the window below (its winbar: the chat's top bar) stays readable
    col = vim.o.columns,
    width = width,
    height = #lines,
    style = 'minimal',
    border = 'rounded',
    focusable = false, -- <C-w>w, the mouse and every key typed elsewhere pass it by
    zindex = 60,
  }
  if valid_win(state.win) then
    vim.api.nvim_win_set_config(state.win, win_opts)
  else
    win_opts.noautocmd = true
    state.win = vim.api.nvim_open_win(state.buf, false, win_opts)
    vim.wo[state.win].wrap = false
  end
  M.watch()
end

--- Keep the notice right while approvals wait: hidden in the review itself, placed again after a resize.
function M.watch()
  if state.group then
    return
  end
  state.group = vim.api.nvim_create_augroup('agent_approval_notice', { clear = true })
  vim.api.nvim_create_autocmd({ 'WinEnter', 'TabEnter', 'VimResized', 'TabNew', 'TabClosed' }, {
    group = state.group,
    callback = function()
      vim.schedule(function()
        M.refresh()
        if #require('agent.permission').open_reviews == 0 and state.group then
          vim.api.nvim_del_augroup_by_id(state.group)
          state.group = nil
        end
      end)
    end,
  })
end

--- The notice window, for tests (nil when hidden).
function M.window()
  return valid_win(state.win) and state.win or nil
end

return M
