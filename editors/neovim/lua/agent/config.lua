---@mod agent.config Options for agent.nvim and their defaults.
local M = {}

---@class agent.Config
M.defaults = {
  -- How to start the server: a list (argv) or a string (split on spaces).
  cmd = { 'agent-server', 'serve' },
  -- Extra environment for the server process.
  cmd_env = nil,
  -- Files or directories that mark a workspace root; the current directory when none is found.
  root_markers = { '.git', '.agent-server.toml' },
  -- LLM endpoint, sent as initializationOptions.llm (same keys as the config file, camelCase).
  -- e.g. { provider = 'ollama', baseUrl = 'http://127.0.0.1:11434', model = 'qwen3:8b' }
  llm = nil,
  -- Any other server settings, merged into initializationOptions (e.g. { tools = { policy = { write_file = 'allow' } } }).
  settings = {},
  -- Tool approvals: 'ask' (show the change, then you choose), 'allow' (allow once, every time) or 'reject'.
  approval = 'ask',
  -- How 'ask' asks. An approval never takes focus by itself: a notice and the chat say it waits, and
  -- :AgentReview (or keymaps.review in the chat) opens it. 'review': a floating window with the command (a/r/s
  -- answer, A/R after a second y) or the diff tab below; 'select': vim.ui.select (telescope/snacks/dressing).
  approval_ui = 'review',
  -- With 'review', a proposed file change opens as a diff in a new tab: the text now beside the proposal, which
  -- you may edit; gr rejects a hunk, ga keeps it and goes on, gy (or :w) allows what you see (|agent-review-diff|).
  -- false: the floating window for file changes too.
  review_diff = true,
  -- Tab labels in words for the plugin's tabs ("calc.py (proposed)", "agent chat") instead of Neovim's shortened
  -- names ("a//p/calc.py"); set only when 'tabline' is empty. false: Neovim's own tab line.
  tabline = true,
  -- Chat window: 'right' (vertical split), 'below' (horizontal split) or 'current'.
  layout = 'right',
  width = 80, -- columns of a 'right' chat
  height = 15, -- lines of a 'below' chat
  input_height = 5,
  -- Fold the model's reasoning and long tool output.
  fold_thinking = true,
  -- Lines of a tool's result shown under its block.
  tool_result_lines = 12,
  -- Echo indexing progress when no progress UI (fidget.nvim, a statusline) shows it.
  notify_progress = true,
  -- Inline completion: ghost text from the server (textDocument/inlineCompletion) while you type in a file; the
  -- server starts at the first insert. `accept` / `dismiss` are insert-mode keys (false: no mapping; a key falls
  -- through to its usual meaning when no suggestion shows). Server-side settings: `settings.completion`.
  completion = { enabled = true, accept = '<Tab>', dismiss = '<C-]>' },
  -- Buffer-local keymaps of the chat and input windows; false disables one.
  keymaps = {
    send = '<CR>', -- normal mode, in the input window
    send_insert = '<C-s>', -- insert mode, in the input window
    stop = '<C-c>', -- chat and input windows
    close = 'q', -- chat and input windows
    review = 'ga', -- chat and input windows (normal mode): open the waiting approval, like :AgentReview
  },
}

---@type agent.Config
M.options = vim.deepcopy(M.defaults)

local function validate(opts)
  local ok_approval = { ask = true, allow = true, reject = true }
  if not ok_approval[opts.approval] then
    error(("agent.nvim: approval must be 'ask', 'allow' or 'reject', got %q"):format(tostring(opts.approval)), 0)
  end
  if opts.approval_ui ~= 'review' and opts.approval_ui ~= 'select' then
    error(("agent.nvim: approval_ui must be 'review' or 'select', got %q"):format(tostring(opts.approval_ui)), 0)
  end
  if type(opts.cmd) == 'string' then
    opts.cmd = vim.split(opts.cmd, '%s+', { trimempty = true })
  end
  if type(opts.cmd) ~= 'table' or #opts.cmd == 0 then
    error('agent.nvim: cmd must be a non-empty list such as { "agent-server", "serve" }', 0)
  end
  if opts.llm ~= nil and type(opts.llm) ~= 'table' then
    error('agent.nvim: llm must be a table such as { provider = "ollama", model = "qwen3:8b" }', 0)
  end
end

---@param user table|nil
function M.set(user)
  local opts = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), user or {})
  if user and user.cmd then
    opts.cmd = user.cmd -- lists replace, never merge
  end
  if user and user.root_markers then
    opts.root_markers = user.root_markers
  end
  validate(opts)
  M.options = opts
  return opts
end

--- The initializationOptions sent to the server.
function M.init_options()
  local o = vim.deepcopy(M.options.settings or {})
  if M.options.llm then
    o.llm = vim.tbl_deep_extend('force', o.llm or {}, M.options.llm)
  end
  o.saveDocumentsRequest = true
  o.diagnosticsRequest = true -- answered by agent.diagnostics
  o.codeRequest = true -- answered by agent.code_nav from the buffer's language servers
  return o
end

return M
