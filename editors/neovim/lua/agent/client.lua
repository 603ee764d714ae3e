---@mod agent.client One agent-server LSP client per workspace root, shared by every buffer under it.
local config = require('agent.config')

local M = {}

local NAME = 'agent-server'
M.NAME = NAME
local has_011 = vim.fn.has('nvim-0.11') == 1

---@class agent.ClientState
---@field id integer        vim.lsp client id
---@field root string
---@field ready boolean     true once agent/initialize answered
---@field queue function[]  callbacks waiting for ready
---@field info table|nil    the agent/initialize result

---@type table<string, agent.ClientState>
M.by_root = {}

--- The workspace root of a buffer (or of the current directory).
---@param bufnr integer|nil
---@return string
function M.root_for(bufnr)
  bufnr = bufnr or 0
  local name = vim.api.nvim_buf_get_name(bufnr)
  local markers = config.options.root_markers
  if name ~= '' and not name:match('^%a+://') and vim.fs.root then
    local root = vim.fs.root(bufnr, markers)
    if root then
      return vim.fs.normalize(root)
    end
  end
  local cwd = vim.fn.getcwd()
  if vim.fs.root then
    local root = vim.fs.root(cwd, markers)
    if root then
      return vim.fs.normalize(root)
    end
  end
  return vim.fs.normalize(cwd)
end

function M.get(client_id)
  return vim.lsp.get_client_by_id(client_id)
end

--- client:request for 0.11+, client.request for 0.10.
function M.request(client, method, params, handler)
  if has_011 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function state_for_client(client_id)
  for _, st in pairs(M.by_root) do
    if st.id == client_id then
      return st
    end
  end
end

local function flush(st)
  local queue = st.queue
  st.queue = {}
  for _, fn in ipairs(queue) do
    local client = M.get(st.id)
    if client then
      fn(client, st)
    end
  end
end

local function handlers()
  return {
    ['agent/session/update'] = function(_, params, ctx)
      require('agent.chat').on_update(ctx.client_id, params)
    end,
    ['agent/session/request_permission'] = function(_, params, ctx)
      return require('agent.permission').ask(params, ctx)
    end,
    ['agent/_saveDocuments'] = function(_, params)
      return M.save_documents(params and params.uris or {})
    end,
    ['agent/_diagnostics'] = function(err, params)
      return require('agent.diagnostics').answer(err, params)
    end,
    ['agent/_code'] = function(err, params) return require('agent.code_nav').answer(err, params) end,
    ['workspace/applyEdit'] = M.apply_edit,
    -- Through vim.notify, as the plugin's own messages: a notification plugin keeps them, and a warning such as
    -- "Ignored until you trust …" is not lost in the message line while the chat redraws.
    ['window/showMessage'] = function(_, params)
      local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
      vim.notify('agent: ' .. tostring(params and params.message or ''), levels[params and params.type or 3])
    end,
    ['window/showMessageRequest'] = function(err, params, ctx)
      return require('agent.question').handler(err, params, ctx)
    end,
  }
end

--- A line's length in the position encoding's units.
local function units(line, encoding)
  if encoding == 'utf-8' then
    return #line
  end
  local ok, n = pcall(vim.str_utfindex, line, encoding) -- Neovim 0.11
  if ok and type(n) == 'number' then
    return n
  end
  local ok10, u32, u16 = pcall(vim.str_utfindex, line) -- Neovim 0.10
  if not ok10 then
    return #line
  end
  return encoding == 'utf-32' and u32 or u16
end

--- Whether an edit's range reaches the end of the document as LSP sees it (the lines, and a final newline when
--- 'eol' is set), so the edit decides whether the text ends with a newline.
local function reaches_end(bufnr, range, encoding)
  local n = vim.api.nvim_buf_line_count(bufnr)
  local e = range['end']
  if e.line >= n then
    return true
  end
  if vim.bo[bufnr].eol or e.line < n - 1 then
    return false
  end
  return e.character >= units(vim.api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1] or '', encoding)
end

--- What each edited document's final newline will be, noted before Neovim applies the edit: Neovim keeps 'eol' as
--- it was and leaves a new final newline as an empty last line, so the buffer would be written with another ending
--- than the text the server sent (and the server, finding another file on disk, would write it again: Neovim's
--- next :w then warns that the file changed since it was read).
local function final_newlines(params, encoding, created)
  local out = {}
  for _, change in ipairs(params and params.edit and params.edit.documentChanges or {}) do
    if change.textDocument and change.edits and #change.edits > 0 then
      local uri = change.textDocument.uri
      local bufnr = vim.uri_to_bufnr(uri)
      if not created[uri] and not vim.api.nvim_buf_is_loaded(bufnr) then
        vim.fn.bufload(bufnr) -- as Neovim's handler does next; its 'eol' comes from the file
      end
      for _, edit in ipairs(change.edits) do
        if created[uri] or reaches_end(bufnr, edit.range, encoding) then
          local text = edit.newText or ''
          local ends = text ~= '' and text:sub(-1) == '\n'
            or (text == '' and edit.range.start.character == 0 and edit.range.start.line > 0)
          -- Neovim drops the empty last line itself when the edit went past the last line and 'eol' or 'fixeol'.
          local dropped = not created[uri]
            and edit.range['end'].line >= vim.api.nvim_buf_line_count(bufnr)
            and (vim.bo[bufnr].eol or (vim.bo[bufnr].fixeol and not vim.bo[bufnr].binary))
          out[#out + 1] = { bufnr = bufnr, uri = uri, ends = ends, dropped = dropped }
        end
      end
    end
  end
  return out
end

--- Neovim's own workspace/applyEdit, then the buffers' final newlines made what the server sent: a text ending in
--- a newline has 'eol' set and no empty last line for it ("hi\n" is one line, saved as "hi\n", not "hi\n\n"); a
--- text without one has 'eol' off.
function M.apply_edit(err, params, ctx)
  local created = {}
  for _, change in ipairs(params and params.edit and params.edit.documentChanges or {}) do
    if change.kind == 'create' and change.uri then
      created[change.uri] = true
    end
  end
  local cl = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local encoding = cl and cl.offset_encoding or 'utf-16'
  local finals = final_newlines(params, encoding, created)
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
  for _, f in ipairs(finals) do
    local bufnr = f.bufnr
    if vim.api.nvim_buf_is_loaded(bufnr) then
      local n = vim.api.nvim_buf_line_count(bufnr)
      if f.ends then
        if not f.dropped and n > 1 and vim.api.nvim_buf_get_lines(bufnr, n - 1, n, false)[1] == '' then
          vim.api.nvim_buf_set_lines(bufnr, n - 1, n, false, {})
        end
        vim.bo[bufnr].eol = true
      else
        vim.bo[bufnr].eol = false
        if created[f.uri] then
          vim.bo[bufnr].fixeol = false -- a new file the agent made without a final newline stays so
        end
      end
    end
  end
  return result
end

--- Write the buffers the server asks for (after a tool changed them), so commands run later see them. Written as
--- LSP sees the buffer: no final newline is added to a text without one ('fixeol' is off for this write only), so
--- the file is exactly what the server sent and it does not write it again behind Neovim's back.
---@param uris string[]
function M.save_documents(uris)
  for _, uri in ipairs(uris) do
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
    if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
      local fixeol = vim.bo[bufnr].fixeol
      if not vim.bo[bufnr].eol then
        vim.bo[bufnr].fixeol = false
      end
      local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
        vim.cmd('silent keepalt write!')
      end)
      vim.bo[bufnr].fixeol = fixeol
      if not ok then
        vim.notify('agent: could not save ' .. uri .. ': ' .. tostring(err), vim.log.levels.WARN)
      end
    end
  end
  return vim.empty_dict()
end

local function on_init(client)
  local st = state_for_client(client.id)
  if not st then
    return
  end
  M.request(client, 'agent/initialize', { protocolVersion = 1, clientCapabilities = vim.empty_dict() }, function(err, result)
    if err then
      vim.notify('agent: agent/initialize failed: ' .. tostring(err.message), vim.log.levels.ERROR)
      return
    end
    st.info = result
    st.ready = true
    flush(st)
  end)
end

local function on_exit(code, signal, client_id)
  local root
  for r, st in pairs(M.by_root) do
    if st.id == client_id then
      M.by_root[r] = nil
      root = r
    end
  end
  -- Died (not stopped by Neovim on exit): the chat restarts it and goes on with its session, as VS Code does.
  local died = root ~= nil and (code ~= 0 or signal ~= 0) and vim.v.exiting == vim.NIL
  vim.schedule(function()
    require('agent.chat').on_client_exit(client_id, died and root or nil)
  end)
end

local function lsp_config(root)
  local opts = config.options
  require('agent.diagnostics').setup() -- counts diagnostics changes from now on (agent/_diagnostics)
  return {
    name = NAME,
    cmd = opts.cmd,
    cmd_env = opts.cmd_env,
    cmd_cwd = root,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    init_options = config.init_options(),
    handlers = handlers(),
    on_init = on_init,
    on_exit = on_exit,
  }
end

--- Start (or reuse) the client for `root` and call fn(client, state) once the agent is initialized.
---@param root string|nil
---@param fn fun(client: table, st: agent.ClientState)|nil
---@return agent.ClientState|nil
function M.ensure(root, fn)
  root = root or M.root_for(0)
  local st = M.by_root[root]
  if st and not M.get(st.id) then
    st, M.by_root[root] = nil, nil
  end
  if not st then
    if vim.fn.executable(config.options.cmd[1]) ~= 1 then
      vim.notify(
        ('agent: %s not found; install agent-server or set cmd in require("agent").setup{}'):format(config.options.cmd[1]),
        vim.log.levels.ERROR
      )
      return nil
    end
    local id
    if has_011 then
      id = vim.lsp.start(lsp_config(root), { attach = false, reuse_client = function() return false end })
    else
      id = vim.lsp.start_client(lsp_config(root))
    end
    if not id then
      vim.notify('agent: could not start ' .. table.concat(config.options.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    st = { id = id, root = root, ready = false, queue = {} }
    M.by_root[root] = st
    M.attach_file_buffers(st)
  end
  if fn then
    table.insert(st.queue, fn)
    if st.ready then
      flush(st)
    end
  end
  return st
end

local function is_file_buffer(bufnr)
  if not vim.api.nvim_buf_is_loaded(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return false
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  return name ~= '' and not name:match('^%a+://')
end

local function under(path, root)
  return path == root or vim.startswith(path, root .. '/')
end

--- Attach a file buffer to its root's client so the server sees unsaved text (didOpen/didChange).
function M.attach_buffer(bufnr)
  if not is_file_buffer(bufnr) then
    return
  end
  local path = vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr))
  for root, st in pairs(M.by_root) do
    if under(path, root) and not vim.lsp.buf_is_attached(bufnr, st.id) then
      vim.lsp.buf_attach_client(bufnr, st.id)
    end
  end
end

function M.attach_file_buffers(st)
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if is_file_buffer(bufnr) and under(vim.fs.normalize(vim.api.nvim_buf_get_name(bufnr)), st.root) then
      vim.lsp.buf_attach_client(bufnr, st.id)
    end
  end
end

--- True once the client's agent answered agent/initialize.
function M.is_ready(client_id)
  local st = state_for_client(client_id)
  return st ~= nil and st.ready
end

--- Call fn(client, state) once the agent of this client is initialized (at once if it is).
function M.when_ready(client_id, fn)
  local st = state_for_client(client_id)
  if not st then
    return
  end
  table.insert(st.queue, fn)
  if st.ready then
    flush(st)
  end
end

--- A running client for root, if any (no start).
function M.running(root)
  local st = M.by_root[root or M.root_for(0)]
  if st and M.get(st.id) then
    return st
  end
end

--- Request that reports errors with vim.notify; cb(result) runs only on success.
function M.call(client, method, params, cb)
  M.request(client, method, params, function(err, result)
    if err then
      vim.notify(('agent: %s failed: %s'):format(method, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      if cb then
        cb(nil, err)
      end
      return
    end
    if cb then
      cb(result)
    end
  end)
end

return M
