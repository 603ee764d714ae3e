-- Loaded with -u by an interactive run: the plugin set up as in the scenarios, then Neovim's own main loop runs and
-- the test types keys into it (--remote-send) like a user and reads the state (--remote-expr AgentTestState()).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

local restores = 0
vim.api.nvim_create_autocmd('User', {
  pattern = 'AgentCheckpointRestored',
  callback = function()
    restores = restores + 1
  end,
})

function _G.AgentTestState()
  local permission = require('agent.permission')
  local review = permission.open_reviews[1]
  local chat = H.chat()
  local cur = vim.api.nvim_get_current_win()
  local cur_buf = vim.api.nvim_get_current_buf()
  -- Open: its float or its diff tab is showing (a pending approval has neither until the user asks).
  local open = review ~= nil
    and ((review.win ~= nil and vim.api.nvim_win_is_valid(review.win))
      or (review.tab ~= nil and vim.api.nvim_tabpage_is_valid(review.tab)))
  local text = review and review.buf and vim.api.nvim_buf_is_valid(review.buf)
    and vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
  return vim.json.encode({
    mode = vim.api.nvim_get_mode().mode,
    pending = #permission.open_reviews,
    notice = require('agent.approval_notice').window() ~= nil,
    review_open = open,
    review_focused = open and cur == review.win,
    review_text = text or vim.NIL,
    input_focused = chat ~= nil and cur == chat.input_win,
    input = chat and chat.input_buf and vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false) or vim.NIL,
    current = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(cur_buf), ':t'),
    current_lines = vim.api.nvim_buf_get_lines(cur_buf, 0, -1, false),
    tabs = #vim.api.nvim_list_tabpages(),
    turns = #vim.tbl_filter(function(e)
      return e.name == 'AgentTurnDone'
    end, H.result.events),
    restores = restores,
    chat = H.chat_text(),
  })
end
