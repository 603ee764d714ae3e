---@mod agent.health :checkhealth agent — the server starts, the LLM server answers, versions.
local M = {}

local h = vim.health

local function server_prefix(cmd)
  for i, arg in ipairs(cmd) do
    if arg == 'serve' then
      return vim.list_slice(cmd, 1, i - 1)
    end
  end
end

--- Start the server, send LSP initialize, and return its serverInfo (or nil, why).
local function handshake(cmd, root, env, init_options)
  local body = vim.json.encode({
    jsonrpc = '2.0',
    id = 1,
    method = 'initialize',
    params = {
      processId = vim.NIL,
      rootUri = vim.uri_from_fname(root),
      capabilities = vim.empty_dict(),
      initializationOptions = init_options,
    },
  })
  local out, err = {}, {}
  local ok, proc = pcall(vim.system, cmd, {
    stdin = true,
    cwd = root,
    env = env,
    stdout = function(_, d)
      if d then
        table.insert(out, d)
      end
    end,
    stderr = function(_, d)
      if d then
        table.insert(err, d)
      end
    end,
  })
  if not ok then
    return nil, tostring(proc)
  end
  proc:write(('Content-Length: %d\r\n\r\n%s'):format(#body, body))
  local answered = vim.wait(20000, function()
    return table.concat(out):find('"id"%s*:%s*1') ~= nil or proc:is_closing()
  end, 50)
  pcall(proc.kill, proc, 15)
  local text = table.concat(out)
  local json = text:match('\r\n\r\n(.*)$')
  if not answered or not json then
    return nil, 'no answer to initialize: ' .. table.concat(err):sub(-500)
  end
  local decoded_ok, msg = pcall(vim.json.decode, json)
  if not decoded_ok or type(msg) ~= 'table' or not msg.result then
    return nil, 'bad answer to initialize: ' .. json:sub(1, 300)
  end
  return msg.result.serverInfo or {}
end

local function doctor_cmd(prefix, llm, root)
  local cmd = vim.list_extend(vim.deepcopy(prefix), { 'doctor', '--json', '--workspace', root })
  if llm then
    if llm.provider then
      vim.list_extend(cmd, { '--provider', llm.provider })
    end
    local url = llm.baseUrl or llm.base_url
    if url then
      vim.list_extend(cmd, { '--base-url', url })
    end
    if llm.model then
      vim.list_extend(cmd, { '--model', llm.model })
    end
  end
  return cmd
end

function M.check()
  local config = require('agent.config')
  local client = require('agent.client')
  local opts = config.options
  local root = client.root_for(0)

  h.start('agent.nvim')
  if vim.fn.has('nvim-0.10') == 1 then
    h.ok('Neovim ' .. tostring(vim.version()))
  else
    h.error('Neovim 0.10 or newer is required', { 'Upgrade Neovim' })
  end
  h.info('workspace root: ' .. root)
  h.info('approvals: ' .. opts.approval)

  h.start('agent-server')
  local cmd = opts.cmd
  if vim.fn.executable(cmd[1]) ~= 1 then
    h.error(('%s is not executable'):format(cmd[1]), {
      'install it from a checkout of agent-server (not on PyPI): pipx install /path/to/agent-server, or pip install -e . in the checkout',
      "or point setup{ cmd = { '/path/to/agent-server', 'serve' } } at it",
    })
    return
  end
  h.ok('command: ' .. table.concat(cmd, ' '))
  local info, why = handshake(cmd, root, opts.cmd_env, config.init_options())
  if info then
    h.ok(('server starts and answers LSP initialize: %s %s'):format(info.name or '?', info.version or ''))
  else
    h.error('the server did not start: ' .. tostring(why), { 'Run the command in a terminal to see its error' })
  end
  for _, c in ipairs(vim.lsp.get_clients({ name = 'agent-server' })) do
    h.info(('running client %d for %s'):format(c.id, c.root_dir or '?'))
  end

  h.start('LLM server')
  local prefix = server_prefix(cmd)
  if not prefix then
    h.warn("cmd has no 'serve' argument, so the LLM check (agent-server doctor) is skipped")
    return
  end
  local res = vim.system(doctor_cmd(prefix, opts.llm, root), { cwd = root, env = opts.cmd_env, text = true }):wait(60000)
  local ok, report = pcall(vim.json.decode, res.stdout or '')
  if not ok or type(report) ~= 'table' then
    h.error('agent-server doctor failed: ' .. ((res.stderr or '') ~= '' and res.stderr or tostring(res.code)))
    return
  end
  h.ok('agent-server ' .. tostring(report.version))
  local problems = report.problems or {}
  if report.base_url and report.base_url ~= vim.NIL then
    -- The model is "OK" only when doctor found it (a missing model is reported once, as an ERROR, below).
    local model_missing = false
    for _, problem in ipairs(problems) do
      model_missing = model_missing or problem:find("model '", 1, true) ~= nil
    end
    local line = ('%s at %s, model %s'):format(tostring(report.provider), report.base_url, tostring(report.model))
    if model_missing then
      h.info(line)
    else
      h.ok(line)
    end
  end
  for _, m in ipairs(report.models or {}) do
    local ctx = m.context_length ~= vim.NIL and m.context_length or '?'
    h.info(('model %s: tools %s, context %s'):format(m.name, tostring(m.tools), tostring(ctx)))
  end
  for _, note in ipairs(report.notes or {}) do
    h.info(note)
  end
  for _, problem in ipairs(problems) do
    h.error(problem)
  end
  if #problems == 0 and report.base_url ~= nil and report.base_url ~= vim.NIL then
    h.ok('the LLM server is reachable')
  end
end

return M
