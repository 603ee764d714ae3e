-- Positions in utf-8 (what Neovim negotiates): the user types into an open buffer of non-ASCII text (didChange
-- ranges read by the server), then the agent edits it (applyEdit ranges sent by the server), once per setup.edits
-- entry, allowed with :AgentReview and `a`; the buffer and the file are recorded after each turn.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local permission = require('agent.permission')
  local target = H.cfg.workspace .. '/' .. H.cfg.setup.file
  vim.cmd('edit ' .. vim.fn.fnameescape(target))
  local buf = vim.api.nvim_get_current_buf()
  local typed = H.cfg.setup.type
  if typed then
    -- Insert at a byte column on a line, as typing there would.
    vim.api.nvim_buf_set_text(buf, typed.line, typed.col, typed.line, typed.col, { typed.text })
    -- Saved: an agent edit leaves a buffer with unsaved changes of the user unsaved (issue 29), and this scenario
    -- checks the disk after each edit.
    vim.cmd('silent write')
  end
  H.result.turns = {}
  for i, prompt in ipairs(H.cfg.setup.prompts) do
    vim.cmd('AgentChat ' .. prompt)
    local answered = 0
    local done = H.wait(30000, function()
      if #permission.open_reviews > 0 then
        permission.review() -- as :AgentReview does
        vim.api.nvim_feedkeys('a', 'x', false)
        answered = answered + 1
      end
      local n = 0
      for _, e in ipairs(H.result.events) do
        n = n + (e.name == 'AgentTurnDone' and 1 or 0)
      end
      return n >= i
    end)
    local f = io.open(target, 'r')
    local disk = f and f:read('*a')
    if f then
      f:close()
    end
    table.insert(H.result.turns, {
      done = done,
      answered = answered,
      buffer = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
      disk = disk,
      eol = vim.bo[buf].eol,
    })
  end
end)
