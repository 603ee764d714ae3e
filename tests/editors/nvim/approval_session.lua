-- "Allow for this session": the review window (opened as :AgentReview opens it) says why it asks and offers `s`;
-- the same command in the next turn of the session is not asked again.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

local function turns_done()
  local n = 0
  for _, e in ipairs(H.result.events) do
    if e.name == 'AgentTurnDone' then
      n = n + 1
    end
  end
  return n
end

H.run(function()
  local permission = require('agent.permission')
  if H.cfg.setup.columns then
    vim.o.columns = H.cfg.setup.columns
  end
  vim.cmd('AgentChat Run the echo')
  H.result.review_open = H.wait(30000, function()
    return #permission.open_reviews > 0
  end)
  local review = permission.review() -- as :AgentReview does
  if review then
    H.result.review = vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
    H.result.footer = vim.api.nvim_win_get_config(review.win).footer
    H.result.review_width = vim.api.nvim_win_get_width(review.win)
    vim.api.nvim_feedkeys('s', 'x', false)
  end
  H.result.first_done = H.wait(30000, function()
    return turns_done() == 1
  end)
  vim.cmd('AgentChat Run it again')
  H.result.second_done = H.wait(30000, function()
    return turns_done() == 2
  end)
  H.result.asked_again = #permission.open_reviews > 0
  H.result.chat = H.chat_text()
end)
