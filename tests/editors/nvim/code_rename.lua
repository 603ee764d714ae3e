-- The code tools in real Neovim with a real language server (jedi-language-server, started for Python buffers as a
-- user's config would): the agent finds a definition and renames a function across two files. The plugin answers
-- agent/_code from the buffer's server (calc.py is loaded for it, and the server attaches there too); the rename is
-- asked about with both files' diffs and lands through workspace/applyEdit, saved.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.api.nvim_create_autocmd('FileType', {
    pattern = 'python',
    callback = function(ev)
      -- jedi-language-server's rename counts code points whatever encoding it negotiated: offered only UTF-32, it
      -- negotiates what it counts (and the plugin converts between the agent's UTF-8 and it).
      local capabilities = vim.lsp.protocol.make_client_capabilities()
      capabilities.general.positionEncodings = { 'utf-32' }
      vim.lsp.start(
        { name = 'jedi', cmd = H.cfg.setup.jedi_cmd, root_dir = H.cfg.workspace, capabilities = capabilities },
        { bufnr = ev.buf }
      )
    end,
  })
  vim.cmd('edit ' .. vim.fn.fnameescape(H.cfg.workspace .. '/main.py'))
  local bufnr = vim.api.nvim_get_current_buf()
  H.result.jedi_attached = H.wait(30000, function()
    return #vim.lsp.get_clients({ bufnr = bufnr, name = 'jedi' }) > 0
  end)
  local permission = require('agent.permission')
  local ask = permission.ask
  H.result.asked = {}
  permission.ask = function(params, ctx)
    table.insert(H.result.asked, params)
    return ask(params, ctx)
  end
  local code_nav = require('agent.code_nav')
  local answer = code_nav.answer
  H.result.code = {}
  code_nav.answer = function(err, params)
    local out, failure = answer(err, params)
    table.insert(H.result.code, {
      kind = params.kind,
      position = params.position,
      served = out and out.served,
      encoding = out and out.positionEncoding,
      err = failure and failure.message,
    })
    return out, failure
  end
  vim.cmd('AgentChat ' .. H.cfg.setup.prompt)
  H.result.waited = H.wait(120000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.stop_reason = (H.event('AgentTurnDone') or {}).stop_reason
  H.result.modified = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].modified then
      table.insert(H.result.modified, vim.api.nvim_buf_get_name(b))
    end
  end
  H.result.main_buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end)
