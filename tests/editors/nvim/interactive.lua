-- Loaded with -u by an interactive run: the plugin set up as in the scenarios, then Neovim's own main loop runs and
-- the test types keys into it (--remote-send) like a user and reads the state (--remote-expr AgentTestState()).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

function _G.AgentTestState()
  local permission = require('agent.permission')
  local review = permission.open_reviews[1]
  local chat = H.chat()
  local cur = vim.api.nvim_get_current_win()
  return vim.json.encode({
    mode = vim.api.nvim_get_mode().mode,
    review_open = review ~= nil,
    review_focused = review ~= nil and cur == review.win,
    review_text = review and vim.api.nvim_buf_get_lines(review.buf, 0, -1, false) or vim.NIL,
    input_focused = chat ~= nil and cur == chat.input_win,
    input = chat and chat.input_buf and vim.api.nvim_buf_get_lines(chat.input_buf, 0, -1, false) or vim.NIL,
    turns = #vim.tbl_filter(function(e)
      return e.name == 'AgentTurnDone'
    end, H.result.events),
    chat = H.chat_text(),
  })
end
