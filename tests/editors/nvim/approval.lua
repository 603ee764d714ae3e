-- A write asks: a notice says an approval waits, without taking the focus; the chat shows the change and can be
-- scrolled meanwhile; the file is untouched until the user opens the review (:AgentReview) and answers with a key
-- there (setup.key: 'a' allow, 'r' reject).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local permission = require('agent.permission')
  local target = H.cfg.workspace .. '/' .. (H.cfg.setup.file or 'hello.txt')
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
  end
  vim.cmd('AgentChat ' .. (H.cfg.setup.prompt or 'Write hi into hello.txt'))
  local input_win = vim.api.nvim_get_current_win()
  H.result.review_open = H.wait(30000, function()
    return #permission.open_reviews > 0
  end)
  local pending = permission.open_reviews[1]
  if pending then
    local notice = require('agent.approval_notice').window()
    H.result.notice = notice and vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(notice), 0, -1, false) or vim.NIL
    H.result.notice_focusable = notice and vim.api.nvim_win_get_config(notice).focusable
    H.result.focus_kept = vim.api.nvim_get_current_win() == input_win
    H.result.file_before = read_file()
    H.result.chat_while_open = H.chat_text()
    H.result.winbar_while_open = vim.wo[H.chat().win].winbar
    H.result.pending_screen = H.screen()
    -- The chat stays usable: go there, scroll to the top and back to the end, while the question is open.
    local chat = H.chat()
    vim.api.nvim_set_current_win(chat.win)
    vim.cmd('normal! gg')
    H.result.scrolled_top = vim.api.nvim_win_get_cursor(chat.win)[1]
    vim.cmd('normal! G')
    H.result.scrolled_end = vim.api.nvim_win_get_cursor(chat.win)[1]
    H.result.still_pending = #permission.open_reviews == 1
    -- The deliberate way in: :AgentReview opens the review and moves the cursor there.
    vim.cmd('AgentReview')
    local review = permission.open_reviews[1]
    H.result.review = vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
    H.result.review_filetype = vim.bo[review.buf].filetype
    H.result.review_is_float = vim.api.nvim_win_get_config(review.win).relative ~= ''
    H.result.review_focused = vim.api.nvim_get_current_win() == review.win
    H.result.notice_in_review = require('agent.approval_notice').window() ~= nil
    H.result.screen = H.screen()
    vim.api.nvim_feedkeys(H.cfg.setup.key or 'a', 'x', false)
  end
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.file_after = read_file()
  H.result.notice_after = require('agent.approval_notice').window() ~= nil
  local bufnr = vim.fn.bufnr(target)
  if bufnr > 0 then
    H.result.hello_buffer = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    H.result.hello_modified = vim.bo[bufnr].modified
  end
  H.result.header_groups = H.tool_header_groups()
  H.result.final_screen = H.screen()
end)
