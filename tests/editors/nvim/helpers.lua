-- Shared setup for the headless Neovim scenarios: reads the test's JSON config, loads the plugin, records results.
vim.g.loaded_python3_provider = 0
vim.o.swapfile = false
vim.o.columns = 160
vim.o.lines = 40

local H = {}

local function read_json(path)
  local f = assert(io.open(path, 'r'))
  local data = vim.json.decode(f:read('*a'))
  f:close()
  return data
end

H.cfg = read_json(assert(os.getenv('AGENT_TEST_CONFIG'), 'AGENT_TEST_CONFIG is not set'))
H.result = { notifications = {}, events = {} }

-- Keep every message the plugin shows, for the test to assert on (setup.show_messages: shown as well, as a user sees
-- them in a terminal).
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(H.result.notifications, { msg = tostring(msg), level = level or vim.log.levels.INFO })
  if H.cfg.setup.show_messages then
    notify(msg, level, opts)
  end
end

vim.opt.rtp:prepend(H.cfg.plugin)
vim.cmd('runtime plugin/agent.lua')
vim.cmd.cd(H.cfg.workspace)

require('agent').setup(vim.tbl_deep_extend('force', {
  cmd = H.cfg.cmd,
  llm = H.cfg.llm,
}, H.cfg.setup or {}))

for _, pattern in ipairs({ 'AgentTurnDone', 'AgentSessionLoaded' }) do
  vim.api.nvim_create_autocmd('User', {
    pattern = pattern,
    callback = function(ev)
      table.insert(H.result.events, { name = pattern, data = ev.data })
    end,
  })
end

--- Open each approval as it arrives, as a user does with :AgentReview (it never opens by itself).
function H.review_when_asked()
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentApprovalWaiting',
    callback = function()
      vim.schedule(function()
        vim.cmd('AgentReview')
      end)
    end,
  })
end

--- The first recorded User event with this name.
function H.event(name)
  for _, e in ipairs(H.result.events) do
    if e.name == name then
      return e.data
    end
  end
end

function H.wait(ms, pred)
  return vim.wait(ms, pred, 10)
end

--- The current workspace's chat state.
function H.chat()
  local st = require('agent.client').running()
  return st and require('agent.chat').by_client[st.id]
end

function H.chat_text()
  local chat = H.chat()
  if not chat or not vim.api.nvim_buf_is_valid(chat.buf) then
    return ''
  end
  return table.concat(vim.api.nvim_buf_get_lines(chat.buf, 0, -1, false), '\n')
end

--- The screen as text (a headless Neovim keeps its grid): for captures and for asserting what a user sees.
function H.screen()
  vim.cmd('redraw!')
  local rows = {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      table.insert(cells, vim.fn.screenstring(r, c))
    end
    rows[#rows + 1] = (table.concat(cells):gsub('%s+$', ''))
  end
  return table.concat(rows, '\n')
end

--- The highlight group of each highlighted tool-block line of the chat: { {line, group}, ... }.
function H.tool_header_groups()
  local chat = H.chat()
  local out = {}
  if not chat or not vim.api.nvim_buf_is_valid(chat.buf) then
    return out
  end
  local ns = vim.api.nvim_get_namespaces()['agent_chat_hl']
  for _, m in ipairs(vim.api.nvim_buf_get_extmarks(chat.buf, ns, 0, -1, { details = true })) do
    local line = vim.api.nvim_buf_get_lines(chat.buf, m[2], m[2] + 1, false)[1]
    table.insert(out, { line = line, group = m[4].hl_group })
  end
  return out
end

--- Write the results and quit (always, even after an error).
function H.finish(extra)
  for k, v in pairs(extra or {}) do
    H.result[k] = v
  end
  H.result.chat = H.result.chat or H.chat_text()
  local f = assert(io.open(H.cfg.result, 'w'))
  f:write(vim.json.encode(H.result))
  f:close()
  vim.cmd('qa!')
end

--- Run the scenario body; any Lua error is recorded instead of hanging the test.
function H.run(body)
  local ok, err = xpcall(body, debug.traceback)
  if not ok then
    H.result.error = tostring(err)
  end
  H.finish()
end

return H
