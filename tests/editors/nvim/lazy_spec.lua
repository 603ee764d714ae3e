-- :checkhealth agent before first use, with the plugin installed by the lazy.nvim spec of editors/neovim/README.md.
-- lazy.nvim itself is not installed here; this emulates what it does with a spec: a spec with lazy-loading keys
-- (cmd, event, ft, keys, lazy = true) is NOT on 'runtimepath' until one of them fires; otherwise lazy.nvim adds the
-- directory, sources plugin/**/*.lua and calls require(main).setup(opts).
vim.g.loaded_python3_provider = 0
local f = assert(io.open(assert(os.getenv('AGENT_TEST_CONFIG')), 'r'))
local cfg = vim.json.decode(f:read('*a'))
f:close()
local result = { notifications = {} }
vim.notify = function(msg, level)
  table.insert(result.notifications, { msg = tostring(msg), level = level or vim.log.levels.INFO })
end

local ok, err = xpcall(function()
  local readme = assert(io.open(cfg.plugin .. '/README.md')):read('*a')
  local block = assert(readme:match('lazy%.nvim.-```lua\n(.-)\n```'), 'no lazy.nvim spec in the README')
  result.spec_text = block
  local spec = assert(loadstring('return ' .. block))()
  spec.dir = cfg.plugin
  local lazy = spec.lazy == true or (spec.lazy == nil and (spec.cmd or spec.event or spec.ft or spec.keys) ~= nil)
  result.lazy_loaded = lazy
  local function load()
    vim.opt.rtp:append(spec.dir)
    for _, file in ipairs(vim.fn.glob(spec.dir .. '/plugin/**/*.lua', false, true)) do
      vim.cmd.source(file)
    end
    if spec.opts or spec.config then
      local opts = vim.tbl_deep_extend('force', spec.opts or {}, { cmd = cfg.cmd, llm = cfg.llm })
      require('agent').setup(opts)
    end
  end
  if lazy then
    for _, name in ipairs(type(spec.cmd) == 'table' and spec.cmd or { spec.cmd }) do
      vim.api.nvim_create_user_command(name, function(o)
        vim.api.nvim_del_user_command(name)
        load()
        vim.cmd(name .. ' ' .. o.args)
      end, { nargs = '*', range = true })
    end
  else
    load()
  end
  vim.cmd.cd(cfg.workspace)
  result.clients_before = #vim.lsp.get_clients({ name = 'agent-server' })
  vim.cmd('checkhealth agent')
  result.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  result.clients_after = #vim.lsp.get_clients({ name = 'agent-server' })
end, debug.traceback)
if not ok then
  result.error = tostring(err)
end
local out = assert(io.open(cfg.result, 'w'))
out:write(vim.json.encode(result))
out:close()
vim.cmd('qa!')
