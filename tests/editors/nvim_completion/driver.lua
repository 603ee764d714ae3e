-- Drives editor.lua's Neovim like a user: open a file, type, Tab, type again; records what was on screen.
-- Usage: nvim -l driver.lua SOCKET RESULT_JSON
local sock, out = arg[1], arg[2]
local result = { steps = {} }
local R = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/remote.lua')(sock)
local input, ghost, line, pending, wait = R.input, R.ghost, R.line, R.pending, R.wait

local ok, err = pcall(function()
  R.command('edit geo.py')
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
pcall(R.command, 'qa!')
