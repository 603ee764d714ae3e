-- A suggestion that runs past the end of the function (the model goes on into another definition): what is shown,
-- what Tab inserts, and the file as the user then saves it.
-- Usage: nvim -l block_end.lua SOCKET RESULT_JSON
local sock, out = arg[1], arg[2]
local result = {}
local R = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/remote.lua')(sock)

local ok, err = pcall(function()
  R.command('edit geo.py')
  R.input('2GA') -- the end of the body's empty line
  result.shown = R.wait(30000, function()
    return R.ghost() ~= vim.NIL
  end)
  result.ghost = R.ghost()
  R.input('<Tab>')
  R.wait(2000, function()
    return R.line() ~= '    '
  end)
  R.input('<Esc>')
  R.wait(2000, function()
    return R.lua('return vim.api.nvim_get_mode().mode') == 'n'
  end)
  R.command('write')
  result.lines = R.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')
end)
if not ok then
  result.error = tostring(err)
end
local fh = assert(io.open(out, 'w'))
fh:write(vim.json.encode(result))
fh:close()
pcall(R.command, 'qa!')
