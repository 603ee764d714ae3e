-- Issue 29 item 6 in Neovim: after a write turn and later work by the user, :AgentCheckpoints undoes only that
-- turn, then undoes that undo ("Undo the last restore"), then restores back to before the turn (a file the user
-- made later is named in the question) and undoes that too. Each confirm question is asked over a drawn preview.
local H = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/helpers.lua')

-- The restore preview is drawn (:redraw) with two tab pages. A headless Neovim (no UI) keeps the grid and tabline
-- click table it started with, 80x24, and asserts when it draws beyond them (helpers.lua sets 160x40): 80x24 here.
vim.o.columns = 80
vim.o.lines = 24

--- The grid as it is, without drawing it first: what the user sees while the question is asked.
local function grid()
  local rows = {}
  for r = 1, vim.o.lines do
    local cells = {}
    for c = 1, vim.o.columns do
      table.insert(cells, vim.fn.screenstring(r, c))
    end
    rows[#rows + 1] = (table.concat(cells):gsub('%s+$', ''))
  end
  return table.concat(rows, '\n')
end

H.run(function()
  local setup = H.cfg.setup
  local pick, action -- what to choose next in the checkpoint list, and the action for it
  H.result.selects = {}
  vim.ui.select = function(items, opts, on_choice)
    local labels = vim.tbl_map(function(i)
      return opts.format_item and opts.format_item(i) or tostring(i)
    end, items)
    local seen = { kind = opts.kind, prompt = opts.prompt, items = labels }
    if opts.kind == 'agent_restore_confirm' then
      seen.screen = grid()
    end
    table.insert(H.result.selects, seen)
    vim.defer_fn(function()
      for i, item in ipairs(items) do
        local ok = (opts.kind == 'agent_permission' and labels[i] == 'Allow once')
          or (opts.kind == 'agent_checkpoint' and labels[i]:find(pick, 1, true))
          or (opts.kind == 'agent_checkpoint_action' and item.id == action)
          or (opts.kind == 'agent_restore_confirm' and i == 1)
        if ok then
          return on_choice(item, i)
        end
      end
      on_choice(nil, nil)
    end, 20)
  end
  H.review_when_asked() -- the approval's picker opens when the user asks for it
  local restored = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'AgentCheckpointRestored',
    callback = function(ev)
      table.insert(restored, ev.data)
    end,
  })
  local function read(name)
    local f = io.open(H.cfg.workspace .. '/' .. name, 'r')
    if not f then
      return vim.NIL
    end
    local text = f:read('*a')
    f:close()
    return text
  end
  local function write(name, text)
    local f = assert(io.open(H.cfg.workspace .. '/' .. name, 'w'))
    f:write(text)
    f:close()
  end
  local function files()
    return { calc = read('calc.py'), notes = read('notes.txt'), mine = read('mine.txt') }
  end

  vim.cmd('AgentChat ' .. setup.prompt)
  H.result.waited = H.wait(30000, function()
    return H.event('AgentTurnDone') ~= nil
  end)
  write('calc.py', setup.user_calc)
  write('mine.txt', 'the user made this later\n')

  H.result.steps = {}
  for _, step in ipairs(setup.steps) do
    pick, action = step[1], step[2]
    local before = #restored
    vim.cmd('AgentCheckpoints')
    local ok = H.wait(30000, function()
      return #restored > before
    end)
    table.insert(H.result.steps, { ok = ok, event = restored[#restored] or vim.NIL, files = files() })
  end
end)
