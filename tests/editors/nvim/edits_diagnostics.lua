-- Diagnostics after an edit: a real language server (ruff server) runs on the open Python file; the agent's edit
-- introduces an error; the plugin answers agent/_diagnostics from vim.diagnostic once it settled.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local target = H.cfg.workspace .. '/' .. H.cfg.setup.file
  vim.cmd('edit ' .. vim.fn.fnameescape(target))
  local bufnr = vim.api.nvim_get_current_buf()
  H.result.diagnostic_events = {}
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    callback = function(ev)
      table.insert(H.result.diagnostic_events, { buf = ev.buf, n = #vim.diagnostic.get(ev.buf) })
    end,
  })
  local id = vim.lsp.start({ name = 'ruff', cmd = H.cfg.setup.ruff_cmd, root_dir = H.cfg.workspace })
  H.result.ruff_attached = H.wait(20000, function()
    return id ~= nil and vim.lsp.buf_is_attached(bufnr, id)
  end)
  -- The user has had the file open: the language server has reported on it (`os` is unused) before the agent edits.
  H.result.ruff_ready = H.wait(20000, function()
    return #vim.diagnostic.get(bufnr) > 0
  end)
  local diagnostics = require('agent.diagnostics')
  local answer = diagnostics.answer
  H.result.answers = {}
  diagnostics.answer = function(err, params)
    local t0 = vim.uv.hrtime()
    local ok, out = pcall(answer, err, params)
    table.insert(H.result.answers, {
      after = params.after,
      ok = ok,
      ms = math.floor((vim.uv.hrtime() - t0) / 1e6),
      n = ok and #out.diagnostics or tostring(out),
    })
    if not ok then
      error(out)
    end
    return out
  end
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.waited = H.wait(60000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.bufnr = bufnr
  H.result.buffers = vim.tbl_map(function(b)
    return { b, vim.api.nvim_buf_get_name(b) }
  end, vim.api.nvim_list_bufs())
  H.result.clients = vim.tbl_map(function(c)
    return c.name
  end, vim.lsp.get_clients({ bufnr = bufnr }))
  H.result.buffer_diagnostics = vim.tbl_map(function(d)
    return d.message
  end, vim.diagnostic.get(bufnr))
  H.result.chat = H.chat_text()
end)
