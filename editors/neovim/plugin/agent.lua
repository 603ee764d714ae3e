-- agent.nvim commands; the plugin itself loads on first use (require('agent').setup{} configures it).
if vim.g.loaded_agent_nvim then
  return
end
vim.g.loaded_agent_nvim = true

if vim.fn.has('nvim-0.10') ~= 1 then
  vim.notify('agent.nvim needs Neovim 0.10 or newer', vim.log.levels.ERROR)
  return
end

local cmd = vim.api.nvim_create_user_command

cmd('AgentChat', function(o)
  require('agent').chat(o.args)
end, { nargs = '*', desc = 'Open the agent chat; with text, send it' })

cmd('AgentAsk', function(o)
  require('agent').ask(o.line1, o.line2, o.args)
end, { nargs = '*', range = true, desc = 'Ask the agent about the selected lines' })

cmd('AgentStop', function()
  require('agent').stop()
end, { desc = 'Cancel the running agent turn' })

cmd('AgentReview', function()
  require('agent').review()
end, { desc = 'Open the waiting agent approval (its keys answer it there)' })

cmd('AgentIndex', function()
  require('agent').index()
end, { desc = 'Index the workspace for codebase search' })

cmd('AgentSessions', function(o)
  require('agent').sessions(o.args)
end, { nargs = '*', desc = 'Resume, search (with words: titles and messages) or delete a stored agent session' })

cmd('AgentModel', function()
  require('agent').model()
end, { desc = 'Choose the model the agent uses' })

cmd('AgentNew', function()
  require('agent').new()
end, { desc = 'Start a new agent session in the chat' })

cmd('AgentMode', function(o)
  require('agent').mode(o.args)
end, {
  nargs = '?',
  complete = function(lead)
    return require('agent.modes').complete(lead)
  end,
  desc = 'Switch the agent mode (code, ask, plan, ...); no argument: pick one',
})

cmd('AgentNewAgent', function(o)
  require('agent').new_agent(o.bang)
end, { bang = true, desc = 'Create an agent profile from a short form (! for the user config dir)' })

cmd('AgentCheckpoints', function()
  require('agent').checkpoints()
end, { desc = 'Review or undo what an agent turn changed' })

cmd('AgentCompletion', function(o)
  local arg = o.args
  local value = nil
  if arg == 'on' then
    value = true
  elseif arg == 'off' then
    value = false
  end
  require('agent.completion').set_enabled(value)
end, {
  nargs = '?',
  complete = function()
    return { 'on', 'off', 'toggle' }
  end,
  desc = 'Inline completion (ghost text) on, off or toggle',
})
