-- A proposed file change opens as a diff in its own tab (the text now | the proposal) once :AgentReview asks for it;
-- setup.keys are typed in the proposal's window like a user would (reject a hunk, edit a line, allow); the file and the tabs are recorded.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local permission = require('agent.permission')
  local target = H.cfg.workspace .. '/' .. H.cfg.setup.file
  local function read_file()
    local f = io.open(target, 'r')
    if not f then
      return vim.NIL
    end
    local text = f:read('*a')
    f:close()
    return text
  end
  if H.cfg.setup.open_file then
    vim.cmd('edit ' .. vim.fn.fnameescape(target))
    if H.cfg.setup.unsaved then
      vim.api.nvim_buf_set_lines(0, -1, -1, false, { H.cfg.setup.unsaved })
    end
  end
  if H.cfg.setup.columns then
    vim.o.columns = H.cfg.setup.columns
  end
  H.result.tabs_before = #vim.api.nvim_list_tabpages()
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.review_open = H.wait(30000, function()
    return #permission.open_reviews > 0
  end)
  H.result.tabs_pending = #vim.api.nvim_list_tabpages() -- the tab opens only when asked for
  local review = permission.open_reviews[1]
  if review and review.diff then
    vim.cmd('AgentReview')
    H.result.is_diff = true
    H.result.tabs_open = #vim.api.nvim_list_tabpages()
    H.result.left = vim.api.nvim_buf_get_lines(review.base_buf, 0, -1, false)
    H.result.right = vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
    H.result.diff_windows = #vim.tbl_filter(function(w)
      return vim.wo[w].diff
    end, vim.api.nvim_tabpage_list_wins(review.tab))
    H.result.left_modifiable = vim.bo[review.base_buf].modifiable
    -- The winbars as drawn: evaluated at each window's width (a too-long one is cut from the left with '<').
    local function drawn(win)
      local opts = { winid = win, use_winbar = true, maxwidth = vim.api.nvim_win_get_width(win) }
      return vim.api.nvim_eval_statusline(vim.wo[win].winbar, opts).str
    end
    H.result.winbar = drawn(review.win)
    H.result.base_winbar = drawn(vim.fn.bufwinid(review.base_buf))
    H.result.file_before = read_file()
    vim.api.nvim_set_current_win(review.win)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(H.cfg.setup.keys, true, false, true), 'xt', false)
    H.result.right_after_keys = vim.api.nvim_buf_is_valid(review.buf)
        and vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
      or vim.NIL
  end
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.file_after = read_file()
  H.result.tabs_after = #vim.api.nvim_list_tabpages()
  local bufnr = vim.fn.bufnr(target)
  if bufnr > 0 then
    H.result.buffer = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    H.result.buffer_modified = vim.bo[bufnr].modified
  end
end)
