-- The prompt shows at once ("starting the agent…" while the server starts); @path, #buffer and #diagnostics attach
-- context; @ completes workspace paths; the answer's markdown is highlighted by treesitter with code injections.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(H.cfg.workspace .. '/notes.md'))
  local ns = vim.api.nvim_create_namespace('test_diagnostics')
  vim.diagnostic.set(ns, 0, { { lnum = 0, col = 0, message = 'a made-up warning', severity = vim.diagnostic.severity.WARN } })
  vim.cmd('AgentChat Look at @calc.py, #buffer and #diagnostics.')
  -- Right after the command, before the server could answer anything: the prompt and the starting state show.
  local chat = H.chat()
  H.result.chat_at_once = H.chat_text()
  H.result.winbar_at_once = vim.wo[chat.win].winbar
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.prompt = chat.last_prompt
  H.result.winbar_after = vim.wo[chat.win].winbar
  -- Markdown: treesitter, with the fenced lua block injected.
  local ok_parser, parser = pcall(vim.treesitter.get_parser, chat.buf)
  H.result.ts_active = vim.treesitter.highlighter.active[chat.buf] ~= nil
  if ok_parser and parser then
    parser:parse(true)
    H.result.ts_lang = parser:lang()
    H.result.injected = vim.tbl_keys(parser:children())
  end
  -- Completion of @ paths in the input.
  vim.api.nvim_set_current_win(chat.input_win)
  vim.api.nvim_buf_set_lines(chat.input_buf, 0, -1, false, { 'see @cal' })
  vim.api.nvim_win_set_cursor(chat.input_win, { 1, 8 })
  local mentions = require('agent.mentions')
  H.result.complete_start = mentions.complete(1, '')
  H.result.completions = vim.tbl_map(function(i)
    return type(i) == 'table' and i.word or i
  end, mentions.complete(0, '@cal'))
  H.result.screen = H.screen()
end)
