-- Drives editor.lua's Neovim like a user: open a file, type, Tab, type again; records what was on screen.
-- Usage: nvim -l driver.lua SOCKET RESULT_JSON
local sock, out = arg[1], arg[2]
local result = { steps = {} }
local chan
for _ = 1, 200 do
  local ok, c = pcall(vim.fn.sockconnect, 'pipe', sock, { rpc = true })
  if ok and c and c > 0 then
    chan = c
    break
  end
  vim.wait(50)
end

local function lua(code)
  return vim.rpcrequest(chan, 'nvim_exec_lua', code, {})
end
local function input(keys)
  vim.rpcrequest(chan, 'nvim_input', keys)
end
local function ghost()
  return lua([[
    local ns = vim.api.nvim_get_namespaces()['agent_completion']
    if not ns then return vim.NIL end
    local marks = vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })
    if #marks == 0 then return vim.NIL end
    local d = marks[1][4]
    local lines = { d.virt_text[1][1] }
    for _, vl in ipairs(d.virt_lines or {}) do lines[#lines + 1] = vl[1][1] end
    return table.concat(lines, '\n')
  ]])
end
local function line()
  return vim.rpcrequest(chan, 'nvim_get_current_line')
end
local function pending()
  return lua("return require('agent.completion').pending() ~= nil")
end
local function wait(ms, pred)
  return vim.wait(ms, function()
    local ok, v = pcall(pred)
    return ok and v
  end, 20)
end

local ok, err = pcall(function()
  vim.rpcrequest(chan, 'nvim_command', 'edit geo.py')
  -- 1. A suggestion appears: insert at the end of the body's empty line.
  input('2GA')
  result.shown = wait(30000, function()
    return ghost() ~= vim.NIL
  end)
  result.ghost = ghost()
  -- 2. Tab accepts it.
  input('<Tab>')
  wait(2000, function()
    return line() ~= '    '
  end)
  result.accepted_line = line()
  result.ghost_after_accept = ghost()
  -- 3. Typing cancels the request in flight: "x" on a new line asks (a slow answer), "v" supersedes it.
  input('<CR>x')
  result.slow_pending = wait(10000, pending)
  vim.wait(800) -- past the server's debounce: the slow request is at the model
  input('v')
  result.second_shown = wait(30000, function()
    return ghost() ~= vim.NIL
  end)
  result.second_ghost = ghost()
  -- 4. Typing removes the suggestion on screen at once (the next answer is slow again).
  input('Z')
  vim.wait(300)
  result.ghost_after_typing = ghost()
  result.line_after_typing = line()
  input('<Esc>')
  vim.wait(300)
  result.pending_after_esc = pending()
end)
if not ok then
  result.error = tostring(err)
end
local fh = assert(io.open(out, 'w'))
fh:write(vim.json.encode(result))
fh:close()
pcall(vim.rpcrequest, chan, 'nvim_command', 'qa!')
