-- :checkhealth agent reports the server and the LLM server.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('checkhealth agent')
  H.result.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
end)
