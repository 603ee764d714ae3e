-- :AgentSessions with words searches titles and what was said (on the server); its Delete entry deletes a session
-- after a confirmation. vim.ui.select / vim.ui.input are answered as a user would, from setup.answers in order.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  local answers = vim.deepcopy(H.cfg.setup.answers)
  H.result.selects, H.result.inputs = {}, {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(function(i)
      return opts.format_item and opts.format_item(i) or tostring(i)
    end, items)
    table.insert(H.result.selects, { kind = opts.kind, prompt = opts.prompt, items = labels })
    local want = table.remove(answers, 1)
    vim.defer_fn(function()
      for i, label in ipairs(labels) do
        if want and label:find(want, 1, true) then
          return on_choice(items[i], i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  vim.ui.input = function(opts, on_confirm)
    table.insert(H.result.inputs, opts.prompt)
    local answer = table.remove(answers, 1)
    vim.defer_fn(function()
      on_confirm(answer)
    end, 20)
  end
  local deleted
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentSessionDeleted',
    callback = function(ev)
      deleted = ev.data
    end,
  })
  local function turn(text)
    local before = #H.result.events
    vim.cmd('AgentChat ' .. text)
    return H.wait(30000, function()
      for i = before + 1, #H.result.events do
        if H.result.events[i].name == 'AgentTurnDone' then
          return true
        end
      end
      return false
    end)
  end
  H.result.turn1 = turn('Fix the parser bug')
  H.result.first_id = H.chat().session_id
  vim.cmd('AgentNew')
  H.result.turn2 = turn('Rename the helpers')
  H.result.second_id = H.chat().session_id

  -- Words only the first session's answer holds: the search offers it, and picking it resumes it.
  vim.cmd('AgentSessions escaped quotes')
  H.result.resumed = H.wait(20000, function()
    return H.event('AgentSessionLoaded') ~= nil
  end)
  H.result.resumed_id = H.chat().session_id

  -- :AgentSessions → Search… → words → the matches.
  vim.cmd('AgentSessions')
  H.result.searched = H.wait(20000, function()
    return #H.result.selects >= 3
  end)
  H.wait(500, function()
    return false
  end)

  -- :AgentSessions → Delete a session… → the one about renaming → Delete.
  vim.cmd('AgentSessions')
  H.result.deleted = H.wait(20000, function()
    return deleted ~= nil
  end)
  H.result.deleted_data = deleted
  local st = require('agent.client').running()
  local cl = require('agent.client').get(st.id)
  local listed
  require('agent.client').call(cl, 'agent/session/list', { cwd = H.chat().root }, function(result)
    listed = result.sessions
  end)
  H.wait(10000, function()
    return listed ~= nil
  end)
  H.result.left = vim.tbl_map(function(s)
    return s.sessionId
  end, listed or {})
end)
