-- The editor under test (editor.lua's Neovim) as a driver script reaches it over RPC: keys typed with nvim_input, so
-- insert mode, autocommands and mappings run as for a user; what is on screen read back.
-- Usage (from a driver run with nvim -l): local R = dofile('remote.lua')(SOCKET)
return function(sock)
  local R = {}
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
  R.lua, R.input, R.ghost, R.line, R.pending, R.wait = lua, input, ghost, line, pending, wait
  R.command = function(cmd)
    return vim.rpcrequest(chan, 'nvim_command', cmd)
  end
  return R
end
