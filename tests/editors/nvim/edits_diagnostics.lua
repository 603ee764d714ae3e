-- Diagnostics after an edit: a real language server (ruff server) runs on the open Python file; the agent's edit
-- introduces an error; the plugin answers agent/_diagnostics from vim.diagnostic once it settled.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local target = H.cfg.workspace .. '/' .. H.cfg.setup.file
  vim.cmd('edit ' .. vim.fn.fnameescape(target))
  local bufnr = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start({ name = 'ruff', cmd = H.cfg.setup.ruff_cmd, root_dir = H.cfg.workspace })
  H.result.ruff_attached = H.wait(20000, function()
    return id ~= nil and vim.lsp.buf_is_attached(bufnr, id)
  end)
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.waited = H.wait(60000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.buffer_diagnostics = vim.tbl_map(function(d)
    return d.message
  end, vim.diagnostic.get(bufnr))
  H.result.chat = H.chat_text()
end)
