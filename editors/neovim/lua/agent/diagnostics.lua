---@mod agent.diagnostics Answers the server's agent/_diagnostics: one file's diagnostics from vim.diagnostic.
---
--- With `after` (a generation the server got before an edit), the answer waits until the file's diagnostics
--- changed since then and stayed quiet for a moment (language servers publish in bursts), at most `timeoutMs`; a
--- buffer no language server is attached to is answered at once (nothing would come).
local M = {}

local QUIET_MS = 300
local MAX_WAIT_MS = 15000

M.generations = {} ---@type table<integer, {count: integer, at: integer}>

local function now_ms()
  return math.floor(vim.uv.hrtime() / 1e6)
end

--- Count the diagnostics changes per buffer (from setup on, so a change before the server asks is not missed).
function M.setup()
  if M.group then
    return
  end
  M.group = vim.api.nvim_create_augroup('agent_diagnostics', { clear = true })
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = M.group,
    callback = function(ev)
      local g = M.generations[ev.buf] or { count = 0, at = 0 }
      M.generations[ev.buf] = { count = g.count + 1, at = now_ms() }
    end,
  })
end

local SEVERITY = { [vim.diagnostic.severity.ERROR] = 1, [vim.diagnostic.severity.WARN] = 2,
  [vim.diagnostic.severity.INFO] = 3, [vim.diagnostic.severity.HINT] = 4 }

local function to_lsp(d)
  local code = d.code
  if code == nil and type(d.user_data) == 'table' and type(d.user_data.lsp) == 'table' then
    code = d.user_data.lsp.code
  end
  return {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    message = d.message,
    severity = SEVERITY[d.severity] or 1,
    source = d.source,
    code = (type(code) == 'string' or type(code) == 'number') and code or nil,
  }
end

--- The other language servers attached to the buffer (the agent's own client reports nothing).
local function language_servers(bufnr)
  local out = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    if c.name ~= require('agent.client').NAME then
      out[#out + 1] = c
    end
  end
  return out
end

--- Neovim pulls diagnostics (`textDocument/diagnostic`) after a change only for the buffer's visible lines, and in
--- 0.11 not at all for a change made while another window is current (the agent's edits always are): ask the pull
--- servers ourselves. The answer goes where Neovim's own pull would (vim.lsp.diagnostic.on_diagnostic); push-only
--- servers publish by themselves.
local function pull(bufnr, clients)
  local method = 'textDocument/diagnostic'
  for _, c in ipairs(clients) do
    if c.server_capabilities and c.server_capabilities.diagnosticProvider then
      local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
      if vim.fn.has('nvim-0.11') == 1 then
        c:request(method, params, vim.lsp.diagnostic.on_diagnostic, bufnr)
      else
        c.request(method, params, vim.lsp.diagnostic.on_diagnostic, bufnr)
      end
    end
  end
end

--- Sleep `ms` without blocking Neovim: yield the handler's coroutine when in one, else vim.wait.
local function sleep(ms)
  local co, is_main = coroutine.running()
  if co and not is_main then
    vim.defer_fn(function()
      coroutine.resume(co)
    end, ms)
    coroutine.yield()
  else
    vim.wait(ms)
  end
end

local function settle(bufnr, after, deadline)
  while now_ms() < deadline do
    local g = M.generations[bufnr]
    if g and g.count > after then
      local quiet = now_ms() - g.at
      if quiet >= QUIET_MS then
        return
      end
      sleep(math.min(QUIET_MS - quiet, deadline - now_ms()))
    else
      sleep(math.min(50, deadline - now_ms()))
    end
  end
end

---@param params {uri: string, after?: integer, timeoutMs?: integer}
function M.answer(_, params)
  local fname = vim.uri_to_fname(params.uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr <= 0 or not vim.api.nvim_buf_is_loaded(bufnr) then
    return { diagnostics = {}, generation = 0 }
  end
  local servers = language_servers(bufnr)
  if params.after ~= nil and params.after ~= vim.NIL and #servers > 0 then
    local timeout = math.max(0, math.min(tonumber(params.timeoutMs) or 3000, MAX_WAIT_MS))
    pull(bufnr, servers)
    settle(bufnr, params.after, now_ms() + timeout)
  end
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    out[#out + 1] = to_lsp(d)
  end
  return { diagnostics = out, generation = (M.generations[bufnr] or {}).count or 0 }
end

return M
