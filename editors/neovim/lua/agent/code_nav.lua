---@mod agent.code_nav Answers the server's agent/_code: one code question to the file's own language servers.
---
--- The server asks for a definition, references, hover, a document's symbols or a rename (docs/protocol.md); the
--- answer is what the buffer's language server answered to textDocument/<kind>, as it is (a rename's WorkspaceEdit
--- is not applied here: the server shows it for review and applies it with workspace/applyEdit), with the encoding
--- its positions count in. A file not loaded yet is loaded and given its filetype, as opening it would, so the
--- servers configured for it attach; `served = false` when none of them offers the request.
local M = {}

local METHODS = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  documentSymbol = 'textDocument/documentSymbol',
  rename = 'textDocument/rename',
}
local MAX_WAIT_MS = 30000
local ATTACH_MS = 5000 -- a language server started for a buffer just loaded attaches within this (else: none)

local has_011 = vim.fn.has('nvim-0.11') == 1

local function now_ms()
  return math.floor(vim.uv.hrtime() / 1e6)
end

--- Sleep without blocking Neovim: yield the handler's coroutine when in one, else vim.wait.
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

local function supports(client, method, bufnr)
  if has_011 then
    return client:supports_method(method, bufnr)
  end
  return client.supports_method(method, { bufnr = bufnr })
end

--- The buffer's language servers (never the agent itself), and those of them that offer `method`.
local function servers(bufnr, method)
  local agent = require('agent.client').NAME
  local attached, offering = 0, {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    if c.name ~= agent then
      attached = attached + 1
      if supports(c, method, bufnr) then
        offering[#offering + 1] = c
      end
    end
  end
  return offering, attached
end

--- The file's buffer, loaded, with its filetype set (FileType starts the language servers configured for it).
local function buffer(fname)
  local bufnr = vim.fn.bufadd(fname)
  local fresh = not vim.api.nvim_buf_is_loaded(bufnr)
  if fresh then
    vim.fn.bufload(bufnr)
  end
  if vim.bo[bufnr].filetype == '' then
    local ft = vim.filetype.match({ buf = bufnr, filename = fname })
    if ft then
      fresh = true
      vim.bo[bufnr].filetype = ft
    end
  end
  return bufnr, fresh
end

local function byteindex(line, encoding, index)
  if encoding == 'utf-8' then
    return math.min(index, #line)
  end
  if has_011 then
    return vim.str_byteindex(line, encoding, index, false)
  end
  return vim.lsp.util._str_byteindex_enc(line, index, encoding)
end

local function unitindex(line, encoding, byte)
  if encoding == 'utf-8' then
    return byte
  end
  if has_011 then
    return vim.str_utfindex(line, encoding, byte, false)
  end
  return vim.lsp.util._str_utfindex_enc(line, byte, encoding)
end

--- A position in the agent's encoding, in the language server's.
local function convert(bufnr, pos, from, to)
  if from == to then
    return pos
  end
  local line = vim.api.nvim_buf_get_lines(bufnr, pos.line, pos.line + 1, false)[1] or ''
  return { line = pos.line, character = unitindex(line, to, byteindex(line, from, pos.character)) }
end

--- One request to one language server, waited for without blocking the editor; (result, err).
local function request(client, method, params, bufnr, timeout_ms)
  local done, result, failure = false, nil, nil
  local co, is_main = coroutine.running()
  local waiting = co and not is_main
  local function finish(err, res)
    if done then
      return
    end
    done, failure, result = true, err, res
    if waiting then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end
  local ok, id
  if has_011 then
    ok, id = client:request(method, params, finish, bufnr)
  else
    ok, id = client.request(method, params, finish, bufnr)
  end
  if not ok then
    return nil, { message = client.name .. ' is not running' }
  end
  vim.defer_fn(function()
    if not done then
      pcall(function()
        if has_011 then
          client:cancel_request(id)
        else
          client.cancel_request(id)
        end
      end)
      finish({ message = 'no answer within ' .. timeout_ms .. ' ms' }, nil)
    end
  end, timeout_ms)
  if waiting then
    coroutine.yield()
  else
    vim.wait(timeout_ms + 100, function()
      return done
    end, 10)
  end
  return result, failure
end

local function agent_encoding()
  local agent = vim.lsp.get_clients({ name = require('agent.client').NAME })[1]
  return agent and agent.offset_encoding or 'utf-16'
end

---@param params {kind: string, uri: string, position?: {line: integer, character: integer}, newName?: string, timeoutMs?: integer}
function M.answer(_, params)
  local method = METHODS[params.kind]
  if not method then
    return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InvalidParams, 'unknown kind ' .. tostring(params.kind))
  end
  local deadline = now_ms() + math.max(0, math.min(tonumber(params.timeoutMs) or 10000, MAX_WAIT_MS))
  local bufnr, fresh = buffer(vim.uri_to_fname(params.uri))
  local clients, attached = servers(bufnr, method)
  local attach_until = fresh and math.min(deadline, now_ms() + ATTACH_MS) or 0
  while attached == 0 and now_ms() < attach_until do
    sleep(50) -- a server configured for the filetype may still be starting
    clients, attached = servers(bufnr, method)
  end
  for _, client in ipairs(clients) do
    local lsp_params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }
    if params.position then
      lsp_params.position = convert(bufnr, params.position, agent_encoding(), client.offset_encoding)
    end
    if params.kind == 'references' then
      lsp_params.context = { includeDeclaration = true }
    elseif params.kind == 'rename' then
      lsp_params.newName = params.newName
    end
    local result, err = request(client, method, lsp_params, bufnr, math.max(1, deadline - now_ms()))
    if err == nil and result ~= nil and result ~= vim.NIL then
      return { served = true, result = result, positionEncoding = client.offset_encoding }
    end
    if err ~= nil and now_ms() >= deadline then
      return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, tostring(err.message))
    end
  end
  if #clients == 0 then
    return { served = false }
  end
  return { served = true, result = vim.NIL }
end

return M
