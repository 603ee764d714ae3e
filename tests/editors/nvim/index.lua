-- :AgentIndex: progress arrives as standard LSP work-done progress (the LspProgress autocmd fidget.nvim uses).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.progress = {}
  H.result.winbars = {}
  vim.cmd('AgentChat')
  vim.api.nvim_create_autocmd('LspProgress', {
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      local value = ev.data.params.value
      local chat = H.chat()
      table.insert(H.result.winbars, chat and vim.api.nvim_win_is_valid(chat.win) and vim.wo[chat.win].winbar or '')
      table.insert(H.result.progress, {
        client = client and client.name,
        kind = value.kind,
        title = value.title,
        message = value.message,
        percentage = value.percentage,
      })
    end,
  })
  vim.cmd('AgentIndex')
  H.result.waited = H.wait(60000, function()
    for _, p in ipairs(H.result.progress) do
      if p.kind == 'end' then
        return true
      end
    end
    return false
  end)
  H.result.status_line = vim.lsp.status()
end)
