-- First Neovim: a chat that the server stores.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  vim.cmd('AgentChat Remember the word banana')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.session_id = (H.event('AgentTurnDone') or {}).session_id
  if H.cfg.setup.mode then
    -- The session is stored in this mode; the resumed chat shows it.
    vim.cmd('AgentMode ' .. H.cfg.setup.mode)
    H.result.mode_set = H.wait(20000, function()
      return H.chat().modes.currentModeId == H.cfg.setup.mode
    end)
  end
end)
