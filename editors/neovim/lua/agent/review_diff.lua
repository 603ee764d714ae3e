---@mod agent.review_diff A proposed file change as a real diff: the text now beside the proposal, which you may edit,
--- reject hunk by hunk, then allow. What you allow is what gets written; the server tells the model what you changed.
local M = {}
local hints = require('agent.hints')

--- The answer keys of a diff review (buffer-local on both sides; `g` keeps a/A/s/r/R free for editing).
M.KEYS = {
  { key = 'gy', kind = 'allow_once', label = 'allow' },
  { key = 'gs', id = 'allow_session', label = 'allow this session' },
  { key = 'gY', kind = 'allow_always', label = 'always allow' },
  { key = 'gn', kind = 'reject_once', label = 'reject' },
  { key = 'gN', kind = 'reject_always', label = 'always reject' },
}

--- The key hints in order of importance (allow, reject and the hunk keys first), with short labels for narrow windows.
local function hint_items(options)
  local permission = require('agent.permission')
  local items = {}
  local function add(key, label, short, opt_ok)
    if opt_ok ~= false then
      items[#items + 1] = { key = key, label = label, short = short }
    end
  end
  local function offered(k)
    if k.id then
      return permission.find_id(options, k.id) ~= nil
    end
    for _, o in ipairs(options) do
      if o.kind == k.kind then
        return true
      end
    end
    return false
  end
  local by_key = {}
  for _, k in ipairs(M.KEYS) do
    by_key[k.key] = k
  end
  add('gy', 'allow', 'allow', offered(by_key.gy))
  add('gn', 'reject', 'reject', offered(by_key.gn))
  add('gr', 'reject hunk', 'reject hunk')
  add('ga', 'keep hunk', 'keep hunk')
  add('gs', 'allow this session', 'session', offered(by_key.gs))
  add('gY', 'always allow', 'always', offered(by_key.gY))
  add('gN', 'always reject', 'never', offered(by_key.gN))
  add(':w', 'allow', 'allow')
  return items
end

--- The winbars of open diff reviews by window: both show the keys, fitted to the proposal window's width (the
--- proposal's winbar has the most important ones; what does not fit there goes on the other side's).
local bars = {}

function M.winbar()
  local win = vim.g.statusline_winid
  local bar = bars[win]
  if not bar then
    return ''
  end
  local prefix = ' proposed: '
  local width = vim.api.nvim_win_is_valid(bar.right) and vim.api.nvim_win_get_width(bar.right) or vim.o.columns
  local rows, short = hints.rows(bar.items, width - #prefix - 1)
  local s
  if win == bar.right then
    s = prefix .. hints.join(rows[1], short)
  else
    s = ' ' .. bar.rel .. ' now'
    if #rows > 1 then
      local rest = {}
      for i = 2, #rows do
        vim.list_extend(rest, rows[i])
      end
      -- Only what fits whole here: the least important keys give way (they still work).
      local left_rows, left_short = hints.rows(rest, vim.api.nvim_win_get_width(win) - #s - 3)
      s = s .. '  ' .. hints.join(left_rows[1], left_short)
    end
  end
  return (s:gsub('%%', '%%%%'))
end

--- Whether every line break of `text` is CRLF (a Windows file): then the lines are shown without their `\r` (no
--- `^M` in the review) and joined back with CRLF. Mixed endings stay as they are, so nothing changes unseen.
local function is_crlf(text)
  return text:find('\r\n', 1, true) ~= nil and not text:find('[^\r]\n') and not text:find('^\n')
end

local function split(text, crlf)
  text = text or ''
  if crlf then
    text = text:gsub('\r\n', '\n')
  end
  local lines = vim.split(text, '\n', { plain = true })
  local final_newline = lines[#lines] == ''
  if final_newline then
    table.remove(lines)
  end
  return lines, final_newline
end

local function join(lines, final_newline, crlf)
  local eol = crlf and '\r\n' or '\n'
  local text = table.concat(lines, eol)
  if final_newline and #lines > 0 then
    text = text .. eol
  end
  return text
end

--- Whether the server's hunk (0-based old_start, old_lines) is untouched in `now`, i.e. the user rejected it: no
--- difference between the text before and `now` reaches its lines (an insertion counts at its place).
local function untouched(hunk, changes)
  local s, n = hunk.oldStart, hunk.oldLines
  for _, c in ipairs(changes) do
    local a, count = c[1], c[2] -- 1-based; count 0: an insertion after line a
    if n > 0 and count > 0 then
      if a <= s + n and a + count - 1 >= s + 1 then
        return false
      end
    elseif n > 0 then
      if a >= s and a <= s + n then
        return false
      end
    elseif count > 0 then
      if s >= a - 1 and s <= a + count - 1 then
        return false
      end
    elseif a == s then
      return false
    end
  end
  return true
end

--- The review part of the answer: the hunks left as they were and the text to write when it is not the proposal.
function M.answer(base, proposed, now, hunks)
  if now == proposed then
    return nil
  end
  local changes = vim.diff(base, now, { result_type = 'indices' }) or {}
  local rejected = {}
  for i, hunk in ipairs(hunks) do
    if untouched(hunk, changes) then
      rejected[#rejected + 1] = i - 1
    end
  end
  return { content = now, rejectedHunks = rejected }
end

--- A scratch buffer of the review tab: its kind, name, text and filetype (the two sides differ only in these).
local function fill_scratch(buf, buftype, name, lines, ft, crlf)
  vim.bo[buf].buftype = buftype
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].fileformat = crlf and 'dos' or 'unix' -- the status line says [dos] as it does for the file itself
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = ft
end

--- Open the review in a new tab (only when the user asks for it: :AgentReview): left the text now (read-only), right
--- the proposal (yours to edit). `done(option, review)` is called once: review is nil when the proposal is allowed as
--- it is.
function M.open(params, diff, options, find, done)
  local tc = params.toolCall or {}
  local hunks = ((tc._meta or {}).review or {}).hunks or {}
  local path = diff.path or ''
  local base_text = (diff.oldText ~= nil and diff.oldText ~= vim.NIL) and diff.oldText or ''
  local base_crlf, crlf = is_crlf(base_text), is_crlf(diff.newText or '') -- each side keeps its own line endings
  local base_lines, base_nl = split(base_text, base_crlf)
  local new_lines, new_nl = split(diff.newText or '', crlf)
  local ft = vim.filetype.match({ filename = path }) or ''
  local rel = vim.fn.fnamemodify(path, ':.')

  local prev_tab = vim.api.nvim_get_current_tabpage()
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local right_win = vim.api.nvim_get_current_win()
  local right = vim.api.nvim_get_current_buf()
  fill_scratch(right, 'acwrite', 'agent://proposed/' .. rel, new_lines, ft, crlf)
  vim.bo[right].modified = false
  vim.cmd('leftabove vnew')
  local left_win = vim.api.nvim_get_current_win()
  local left = vim.api.nvim_get_current_buf()
  fill_scratch(left, 'nofile', 'agent://now/' .. rel, base_lines, ft, base_crlf)
  vim.bo[left].modifiable = false
  for _, w in ipairs({ left_win, right_win }) do
    vim.api.nvim_win_call(w, function()
      vim.cmd('diffthis')
    end)
  end
  local bar = { rel = rel, right = right_win, items = hint_items(options) }
  bars[left_win], bars[right_win] = bar, bar
  for _, w in ipairs({ left_win, right_win }) do
    vim.wo[w].winbar = "%!v:lua.require'agent.review_diff'.winbar()"
  end
  vim.api.nvim_set_current_win(right_win)
  vim.cmd('stopinsert') -- opened with :AgentReview from insert mode (<C-o>): the review's keys are normal-mode keys
  vim.api.nvim_win_set_cursor(right_win, { 1, 0 })
  vim.cmd('normal! ]c')

  local entry = { buf = right, base_buf = left, win = right_win, tab = tab, params = params, diff = true }
  local finished = false
  local function finish(opt)
    if finished then
      return
    end
    finished = true
    bars[left_win], bars[right_win] = nil, nil
    local review
    if opt and opt.kind and opt.kind:match('^allow') and vim.api.nvim_buf_is_valid(right) then
      local now = join(vim.api.nvim_buf_get_lines(right, 0, -1, false), new_nl, crlf)
      review = M.answer(join(base_lines, base_nl, base_crlf), diff.newText or '', now, hunks)
    end
    if vim.api.nvim_buf_is_valid(right) then
      vim.bo[right].modified = false -- what to write is taken; closing must not ask about it
    end
    if vim.api.nvim_tabpage_is_valid(tab) then
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tab)) do
        pcall(vim.api.nvim_win_call, w, function()
          vim.cmd('diffoff')
        end)
      end
      if #vim.api.nvim_list_tabpages() > 1 then
        pcall(vim.cmd, 'tabclose ' .. vim.api.nvim_tabpage_get_number(tab))
      end
    end
    if vim.api.nvim_tabpage_is_valid(prev_tab) then
      pcall(vim.api.nvim_set_current_tabpage, prev_tab)
    end
    done(opt, review, entry)
  end
  entry.answer = function(kind)
    finish(kind and find(options, kind) or nil)
  end

  for _, b in ipairs({ left, right }) do
    local o = { buffer = b, nowait = true }
    vim.keymap.set('n', 'gr', function()
      if vim.api.nvim_get_current_buf() == right then
        vim.cmd('diffget ' .. left)
      else
        vim.cmd('diffput ' .. right)
      end
    end, vim.tbl_extend('force', o, { desc = 'agent: reject this hunk (u undoes it)' }))
    vim.keymap.set('n', 'ga', function()
      pcall(vim.cmd, 'normal! ]c')
    end, vim.tbl_extend('force', o, { desc = 'agent: keep this hunk, go to the next' }))
    for _, k in ipairs(M.KEYS) do
      local opt = k.id and require('agent.permission').find_id(options, k.id) or (not k.id and find(options, k.kind))
      if opt then
        vim.keymap.set('n', k.key, function()
          -- gY / gN store a rule: they take a second, deliberate yes.
          if require('agent.permission').confirm(opt, tc) then
            finish(opt)
          end
        end, vim.tbl_extend('force', o, { desc = 'agent: ' .. k.label }))
      end
    end
  end
  -- :w on the proposal allows it as it stands (nothing is written here; the server writes the file).
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = right,
    callback = function()
      vim.schedule(function() -- not while :w itself runs: finishing closes this tab
        finish(find(options, 'allow_once'))
      end)
    end,
  })
  vim.api.nvim_create_autocmd('BufWipeout', {
    buffer = right,
    once = true,
    callback = function()
      vim.schedule(function()
        finish(nil)
      end)
    end,
  })
  return entry
end

return M
