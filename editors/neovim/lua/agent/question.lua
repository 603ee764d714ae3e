--- The server's questions with details (window/showMessageRequest whose message has more than one line, such as
--- the workspace-trust question: its first line asks, the lines after it list the programs, URLs and rules at
--- stake). The details stay in a window next to the choice until it is answered; one-line questions go to Neovim's
--- own handler.
local M = {}

local function open_details(lines)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  vim.b[buf].agent_question = true
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.max(20, vim.o.columns - 6))
  local height = math.min(#lines, math.max(3, vim.o.lines - 8))
  local ok, win = pcall(vim.api.nvim_open_win, buf, false, {
    relative = 'editor',
    row = 1,
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    title = ' What trusting would enable ',
    zindex = 200,
  })
  if ok then
    vim.wo[win].wrap = true
  end
  return ok and win or nil
end

function M.handler(err, params, ctx)
  local message = params and params.message or ''
  local lines = vim.split(message, '\n', { plain = true })
  local co, is_main = coroutine.running()
  if #lines < 2 or not co or is_main then
    return vim.lsp.handlers['window/showMessageRequest'](err, params, ctx)
  end
  local details = vim.list_slice(lines, 2)
  local win = open_details(details)
  vim.cmd('redraw') -- drawn before the choice: the default vim.ui.select (inputlist) blocks until answered
  local actions = params.actions or {}
  local choice
  vim.ui.select(actions, {
    prompt = lines[1],
    kind = 'agent_question',
    format_item = function(action)
      return action.title
    end,
  }, function(item)
    choice = item
    vim.schedule(function() -- scheduled: a synchronous vim.ui.select answers before the yield below
      coroutine.resume(co)
    end)
  end)
  coroutine.yield()
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_win_close(win, true)
  end
  return choice or vim.NIL
end

return M
