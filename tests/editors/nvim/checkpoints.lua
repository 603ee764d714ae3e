-- After an approved write turn, :AgentCheckpoints reviews what the turn changed (a diff tab) and restores it:
-- setup.restore = 'restore' (files) or 'restore_conversation' (files and conversation; then one more prompt).
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

-- The restore preview is drawn (:redraw) with two tab pages. A headless Neovim (no UI) keeps the grid and tabline
-- click table it started with, 80x24, and asserts when it draws beyond them (helpers.lua sets 160x40): 80x24 here.
vim.o.columns = 80
vim.o.lines = 24

H.run(function()
  local setup = H.cfg.setup
  local answers = { agent_permission = 'Allow once', agent_checkpoint = 1, agent_restore_confirm = 1 }
  local action -- the action to pick next
  H.result.selects = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(function(i)
      return opts.format_item and opts.format_item(i) or tostring(i)
    end, items)
    local kinds = vim.tbl_map(function(i)
      return type(i) == 'table' and i.kind or vim.NIL
    end, items)
    table.insert(H.result.selects, { kind = opts.kind, prompt = opts.prompt, items = labels, item_kinds = kinds })
    vim.defer_fn(function()
      local want = opts.kind == 'agent_checkpoint_action' and action or answers[opts.kind]
      for i, item in ipairs(items) do
        if want == i or want == labels[i] or (type(item) == 'table' and item.id == want) then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  H.review_when_asked() -- the approval's picker opens when the user asks for it
  local events = {}
  for _, pattern in ipairs({ 'AgentCheckpointReview', 'AgentCheckpointRestored' }) do
    vim.api.nvim_create_autocmd('User', {
      pattern = pattern,
      callback = function(ev)
        events[pattern] = ev.data
      end,
    })
  end
  local target = H.cfg.workspace .. '/' .. setup.file
  local function read_file()
    local f = io.open(target, 'r')
    if not f then
      return vim.NIL
    end
    local text = f:read('*a')
    f:close()
    return text
  end

  if setup.open_file then
    vim.cmd('edit ' .. vim.fn.fnameescape(target))
  end
  vim.cmd('AgentChat ' .. setup.prompt)
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  H.result.file_after_turn = read_file()
  H.result.chat_after_turn = H.chat_text()

  -- Review. (No H.screen() while two tab pages exist: headless Neovim 0.11 asserts in draw_tabline on redraw!.)
  action = 'review'
  local tabs_before = #vim.api.nvim_list_tabpages()
  vim.cmd('AgentCheckpoints')
  H.result.reviewed = H.wait(20000, function()
    return events.AgentCheckpointReview ~= nil
  end)
  local review = require('agent.checkpoints').last_review
  H.result.review_new_tab = #vim.api.nvim_list_tabpages() == tabs_before + 1
  H.result.review = vim.api.nvim_buf_get_lines(review.buf, 0, -1, false)
  H.result.review_filetype = vim.bo[review.buf].filetype
  vim.api.nvim_feedkeys('q', 'x', false)
  H.result.review_closed = not vim.api.nvim_tabpage_is_valid(review.tab)

  -- Restore.
  action = setup.restore
  vim.cmd('AgentCheckpoints')
  H.result.restored = H.wait(30000, function()
    return events.AgentCheckpointRestored ~= nil
  end)
  H.result.restore_event = events.AgentCheckpointRestored
  H.result.file_after_restore = read_file()
  local bufnr = vim.fn.bufnr(target)
  if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
    H.result.buffer_after_restore = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    H.result.buffer_modified_after_restore = vim.bo[bufnr].modified
  end
  H.result.chat_after_restore = H.chat_text()
  H.result.tabs_after_restore = #vim.api.nvim_list_tabpages()

  if setup.next_prompt then
    H.result.events = {}
    vim.cmd('AgentChat ' .. setup.next_prompt)
    H.result.waited2 = H.wait(30000, function()
      return H.event('AgentTurnDone') ~= nil
    end)
  end
end)
