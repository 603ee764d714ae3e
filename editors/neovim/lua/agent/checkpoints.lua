---@mod agent.checkpoints :AgentCheckpoints — review what a turn changed, restore the files (and the conversation).
local client = require('agent.client')

local M = {}

---@type table|nil the last review tab {tab, buf, checkpoint} (for tests and for closing a preview)
M.last_review = nil

local function text_of(v)
  return type(v) == 'string' and v or nil
end

--- Hunks between two texts (3 lines of context); '' stands for a missing file.
local function hunks(old, new)
  local diff = (vim.text and vim.text.diff) or vim.diff
  local ok, out = pcall(diff, old, new, { ctxlen = 3 })
  if not ok or type(out) ~= 'string' then
    return {}
  end
  local lines = vim.split(out, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

--- A path as the user knows it: relative to the workspace root when under it.
function M.relative(path, root)
  path = tostring(path or '?')
  if root and vim.startswith(path, root .. '/') then
    return path:sub(#root + 2)
  end
  return path
end

--- One file's change as unified-diff lines with git-style headers (what `filetype=diff` highlights).
---@param f table {path, status, oldText, newText, binary}
function M.file_diff_lines(f, root)
  local path = M.relative(f.path, root)
  local out = { ('diff --git a/%s b/%s'):format(path, path) }
  if f.binary == true then
    table.insert(out, ('Binary file %s %s'):format(path, f.status or 'modified'))
    return out
  end
  local old, new = text_of(f.oldText), text_of(f.newText)
  if f.status == 'added' or not old then
    table.insert(out, 'new file')
  elseif f.status == 'deleted' or not new then
    table.insert(out, 'deleted file')
  end
  table.insert(out, old and ('--- a/' .. path) or '--- /dev/null')
  table.insert(out, new and ('+++ b/' .. path) or '+++ /dev/null')
  vim.list_extend(out, hunks(old or '', new or ''))
  return out
end

--- Open a tab page with one scratch buffer holding the unified diff of `files` (filetype diff; q closes it).
---@return table {tab, buf}
function M.open_diff(title, header, files, root)
  local lines = vim.list_extend({}, header)
  if #files == 0 then
    table.insert(lines, '(no file changes)')
  end
  for _, f in ipairs(files) do
    table.insert(lines, '')
    vim.list_extend(lines, M.file_diff_lines(f, root))
  end
  vim.cmd('tabnew')
  local tab = vim.api.nvim_get_current_tabpage()
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'diff'
  vim.keymap.set('n', 'q', function()
    M.close(tab)
  end, { buffer = buf, nowait = true, silent = true, desc = 'agent: close the review' })
  M.last_review = { tab = tab, buf = buf, title = title }
  return M.last_review
end

function M.close(tab)
  if tab and vim.api.nvim_tabpage_is_valid(tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd.tabclose(vim.api.nvim_tabpage_get_number(tab))
  end
end

local function when(created)
  if type(created) == 'number' then
    return os.date('%Y-%m-%d %H:%M', math.floor(created)) -- seconds since the epoch, shown in local time
  end
  local s = tostring(created or '')
  local date, time = s:match('^(%d%d%d%d%-%d%d%-%d%d)[T ](%d%d:%d%d)')
  return date and (date .. ' ' .. time) or s
end

local function one_line(text, max)
  local line = (tostring(text or ''):gsub('%s+', ' '))
  line = vim.trim(line)
  if #line > max then
    line = line:sub(1, max - 1) .. '…'
  end
  return line
end

function M.label(cp)
  local prompt = type(cp.prompt) == 'string' and cp.prompt ~= '' and one_line(cp.prompt, 60) or '(no prompt)'
  local extra = cp.complete == false and '  [turn unfinished]' or ''
  return ('%s  %s%s'):format(when(cp.createdAt), prompt, extra)
end

local function fire(pattern, data)
  vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
end

--- Review: what that turn changed, as a diff tab.
function M.review(chat, cl, cp)
  client.call(cl, 'agent/_checkpoints/show', { checkpointId = cp.id }, function(result)
    if not result then
      return
    end
    local files = type(result.files) == 'table' and result.files or {}
    local header = {
      '# What this turn changed: ' .. M.label(cp),
      ('# %d file(s); q closes this tab'):format(#files),
    }
    M.open_diff('agent://checkpoint/' .. cp.id, header, files, chat.root)
    fire('AgentCheckpointReview', { checkpoint = cp.id, files = #files })
  end)
end

--- Restore the files (and, with `conversation`, cut the history at that turn): preview first, then confirm.
function M.restore(chat, cl, cp, conversation)
  if chat.busy then
    vim.notify('agent: a turn is running; stop it first (:AgentStop)', vim.log.levels.WARN)
    return
  end
  client.call(cl, 'agent/_checkpoints/restore', { checkpointId = cp.id, dryRun = true }, function(preview)
    if not preview then
      return
    end
    local files = type(preview.files) == 'table' and preview.files or {}
    if #files == 0 and not conversation then
      vim.notify('agent: the files are already as they were before that turn', vim.log.levels.INFO)
      fire('AgentCheckpointRestored', { checkpoint = cp.id, restored = false, files = {} })
      return
    end
    local paths = vim.tbl_map(function(f)
      return ('%s (%s)'):format(M.relative(f.path, chat.root), f.status)
    end, files)
    local shown = M.open_diff('agent://restore-preview/' .. cp.id, {
      '# Restoring to before: ' .. M.label(cp),
      '# These files would change back (the diff goes from now to then):',
    }, files, chat.root)
    local what = conversation and 'Restore files and conversation' or 'Restore files'
    local prompt = ('%s? %d file(s): %s%s'):format(
      what,
      #files,
      #paths > 0 and table.concat(paths, ', ') or 'none',
      conversation and '; the conversation from that prompt on is removed' or ''
    )
    vim.ui.select({ what, 'Cancel' }, { prompt = prompt, kind = 'agent_restore_confirm' }, function(choice)
      M.close(shown.tab)
      if choice ~= what then
        fire('AgentCheckpointRestored', { checkpoint = cp.id, restored = false, files = {} })
        return
      end
      local params = { checkpointId = cp.id, conversation = conversation or false }
      client.call(cl, 'agent/_checkpoints/restore', params, function(result)
        if not result then
          fire('AgentCheckpointRestored', { checkpoint = cp.id, restored = false, files = {} })
          return
        end
        local done = vim.tbl_map(function(f)
          return f.path
        end, type(result.files) == 'table' and result.files or {})
        vim.cmd('silent! checktime') -- buffers of files restored on disk reload
        local msg = ('agent: restored %d file(s)'):format(#done)
        if result.conversationCut then
          msg = msg .. ' and cut the conversation'
        end
        for _, note in ipairs(type(result.notes) == 'table' and result.notes or {}) do
          msg = msg .. '\n' .. tostring(note)
        end
        vim.notify(msg, vim.log.levels.INFO)
        local function finish()
          fire('AgentCheckpointRestored', {
            checkpoint = cp.id,
            restored = true,
            files = done,
            conversation_cut = result.conversationCut == true,
          })
        end
        if result.conversationCut and chat.session_id and cp.sessionId == chat.session_id then
          -- Reload the transcript so the removed messages leave the chat too.
          local chat_mod = require('agent.chat')
          local group = vim.api.nvim_create_augroup('agent_checkpoint_reload', { clear = true })
          vim.api.nvim_create_autocmd('User', {
            group = group,
            pattern = 'AgentSessionLoaded',
            once = true,
            callback = finish,
          })
          chat_mod.load(chat, { sessionId = chat.session_id, title = chat.title })
        else
          finish()
        end
      end)
    end)
  end)
end

M.ACTIONS = {
  { id = 'review', label = 'Review what this turn changed' },
  { id = 'restore', label = 'Restore the files to before this turn' },
  { id = 'restore_conversation', label = 'Restore the files and the conversation to before this turn' },
}

--- :AgentCheckpoints — pick a turn of this chat's session, then review or restore it.
function M.pick(chat, cl)
  -- A chat without a session (Neovim restarted, nothing resumed) lists the workspace's checkpoints instead.
  local params = chat.session_id and { sessionId = chat.session_id } or { cwd = chat.root }
  client.call(cl, 'agent/_checkpoints/list', params, function(result)
    local list = result and type(result.checkpoints) == 'table' and result.checkpoints or {}
    if #list == 0 then
      if result then
        local where = chat.session_id and 'this session' or 'this workspace'
        vim.notify(('agent: no checkpoints in %s (turns that changed no file take none)'):format(where), vim.log.levels.INFO)
      end
      return
    end
    local newest_first = {}
    for i = #list, 1, -1 do
      table.insert(newest_first, list[i])
    end
    vim.ui.select(newest_first, {
      prompt = 'Checkpoint (before the turn)',
      kind = 'agent_checkpoint',
      format_item = M.label,
    }, function(cp)
      if not cp then
        return
      end
      vim.ui.select(M.ACTIONS, {
        prompt = one_line(cp.prompt, 50),
        kind = 'agent_checkpoint_action',
        format_item = function(a)
          return a.label
        end,
      }, function(action)
        if not action then
          return
        elseif action.id == 'review' then
          M.review(chat, cl, cp)
        else
          M.restore(chat, cl, cp, action.id == 'restore_conversation')
        end
      end)
    end)
  end)
end

return M
