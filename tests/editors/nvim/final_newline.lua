-- Agent edits of open files, with and without a final newline (setup.cases: file and prompt, one turn each, allowed
-- by setup.approval): after each, the disk holds what the agent wrote, the buffer shows it without a stray empty
-- line, and :checktime finds the file as the buffer last wrote it: no reload behind the user's back, so no "changed
-- since reading it" warning on their next :w.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local events = {}
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'FileChangedShellPost' }, {
    callback = function(ev)
      events[#events + 1] = ev.event .. ' ' .. vim.fn.fnamemodify(ev.file, ':t')
    end,
  })
  H.result.cases = {}
  for i, case in ipairs(H.cfg.setup.cases) do
    local path = H.cfg.workspace .. '/' .. case.file
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local buf = vim.api.nvim_get_current_buf()
    events = {}
    vim.cmd('AgentChat ' .. case.prompt)
    local done = H.wait(30000, function()
      local n = 0
      for _, e in ipairs(H.result.events) do
        n = n + (e.name == 'AgentTurnDone' and 1 or 0)
      end
      return n >= i
    end)
    vim.cmd('stopinsert')
    vim.cmd('checktime')
    local f = io.open(path, 'rb')
    local disk = f and f:read('*a')
    if f then
      f:close()
    end
    table.insert(H.result.cases, {
      done = done,
      disk = disk,
      buffer = vim.api.nvim_buf_get_lines(buf, 0, -1, false),
      eol = vim.bo[buf].eol,
      modified = vim.bo[buf].modified,
      reloaded = vim.deepcopy(events),
    })
  end
end)
