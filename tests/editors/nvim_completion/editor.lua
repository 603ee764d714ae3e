-- The editor under test: a headless Neovim with --listen, the plugin set up from AGENT_TEST_CONFIG. The driver
-- (driver.lua) types into it over RPC (nvim_input), so insert mode, autocmds and mappings run as for a user.
vim.g.loaded_python3_provider = 0
vim.o.swapfile = false
local f = assert(io.open(assert(os.getenv('AGENT_TEST_CONFIG')), 'r'))
local cfg = vim.json.decode(f:read('*a'))
f:close()
vim.opt.rtp:prepend(cfg.plugin)
vim.cmd('runtime plugin/agent.lua')
vim.cmd.cd(cfg.workspace)
require('agent').setup({ cmd = cfg.cmd, llm = cfg.llm, settings = cfg.settings })
