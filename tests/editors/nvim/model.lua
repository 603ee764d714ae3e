-- :AgentModel lists the LLM server's models with vim.ui.select and switches the model later prompts use.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

H.run(function()
  H.result.offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      table.insert(H.result.offered, opts.format_item(item))
    end
    vim.schedule(function()
      for i, item in ipairs(items) do
        if item.name == 'small:1b' then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end)
  end
  vim.cmd('AgentChat')
  H.wait(20000, function()
    return (vim.wo[H.chat().win].winbar or ''):find('qwen3', 1, true) ~= nil
  end)
  H.result.winbar_before_pick = vim.wo[H.chat().win].winbar
  vim.cmd('AgentModel')
  H.result.selected = H.wait(20000, function()
    local chat = H.chat()
    return chat ~= nil and chat.model == 'small:1b'
  end)
  H.result.winbar_after_pick = vim.wo[H.chat().win].winbar
  vim.cmd('AgentChat hi')
  H.result.waited = H.wait(20000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
end)
