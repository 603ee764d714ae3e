---@mod agent.checkpoints :AgentCheckpoints — review what a turn changed, undo only that turn, restore the files (and
--- the conversation) to before it, undo the last restore.
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

local function restored_event(id, extra)
  local data = vim.tbl_extend('force', { checkpoint = id, restored = false, files = {} }, extra or {})
  fire('AgentCheckpointRestored', data)
end

--- One preview line per file: "calc.py (modified)", and a warning for a file made after the turn.
local function preview_paths(files, root)
  return vim.tbl_map(function(f)
    local note = f.createdLater == true and ', made after this turn: kept in the undo checkpoint' or ''
    return ('%s (%s%s)'):format(M.relative(f.path, root), f.status, note)
  end, files)
end

--- Preview (a diff tab, drawn before the question), confirm, then run `method` with `params`.
---@param how table {method, params, id, session_id, what, header, conversation}
local function preview_then_run(chat, cl, how)
  client.call(cl, how.method, vim.tbl_extend('force', how.params, { dryRun = true }), function(preview)
    if not preview then
      return
    end
    local files = type(preview.files) == 'table' and preview.files or {}
    local conflicts = type(preview.conflicts) == 'table' and preview.conflicts or {}
    if #files == 0 and #conflicts == 0 and not how.conversation then
      vim.notify('agent: the files are already as they would be', vim.log.levels.INFO)
      restored_event(how.id)
      return
    end
    local header = vim.list_extend({}, how.header)
    for _, c in ipairs(conflicts) do
      table.insert(header, ('# Left as it is (conflict): %s: %s'):format(M.relative(c.path, chat.root), c.reason))
    end
    local later = vim.tbl_filter(function(f)
      return f.createdLater == true
    end, files)
    if #later > 0 then
      table.insert(
        header,
        ('# %d file(s) made after this turn would be deleted (Undo the last restore brings them back)'):format(#later)
      )
    end
    local shown = M.open_diff('agent://restore-preview/' .. how.id, header, files, chat.root)
    -- vim.ui.select may block (inputlist): draw the preview first, or the question sits over a stale screen.
    vim.cmd('redraw')
    local paths = preview_paths(files, chat.root)
    local prompt = ('%s? %d file(s): %s%s%s'):format(
      how.what,
      #files,
      #paths > 0 and table.concat(paths, ', ') or 'none',
      #conflicts > 0 and ('; %d conflicting file(s) left as they are'):format(#conflicts) or '',
      how.conversation and '; the conversation from that prompt on is removed (an undo brings back the files only)' or ''
    )
    vim.ui.select({ how.what, 'Cancel' }, { prompt = prompt, kind = 'agent_restore_confirm' }, function(choice)
      M.close(shown.tab)
      if choice ~= how.what then
        restored_event(how.id)
        return
      end
      client.call(cl, how.method, how.params, function(result)
        if not result then
          restored_event(how.id)
          return
        end
        local done = vim.tbl_map(function(f)
          return f.path
        end, type(result.files) == 'table' and result.files or {})
        local left = vim.tbl_map(function(c)
          return c.path
        end, type(result.conflicts) == 'table' and result.conflicts or {})
        vim.cmd('silent! checktime') -- buffers of files restored on disk reload
        local summary = ('restored %d file(s)'):format(#done)
        if result.conversationCut then
          summary = summary .. ' and cut the conversation'
        end
        if #left > 0 then
          summary = summary .. ('; left %d conflicting file(s) as they are'):format(#left)
        end
        local details = {}
        if #left > 0 then
          details[#details + 1] = 'left as they are (conflicts): ' .. table.concat(left, ', ')
        end
        if type(result.undoCheckpointId) == 'string' then
          details[#details + 1] = ':AgentCheckpoints → "Undo the last restore" takes it back'
        end
        for _, note in ipairs(type(result.notes) == 'table' and result.notes or {}) do
          details[#details + 1] = tostring(note)
        end
        -- The whole story in the chat; in the message area one line that fits (more ends in "Press ENTER").
        local function tell()
          local chat_mod = require('agent.chat')
          chat_mod.note(chat, summary)
          for _, line in ipairs(details) do
            chat_mod.note(chat, line)
          end
          require('agent.message').brief('agent: ' .. summary .. (#details > 0 and ' (more in the chat)' or ''))
        end
        local function finish()
          tell()
          restored_event(how.id, {
            restored = true,
            files = done,
            conflicts = left,
            conversation_cut = result.conversationCut == true,
            undo_checkpoint = result.undoCheckpointId,
          })
        end
        if result.conversationCut and chat.session_id and how.session_id == chat.session_id then
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

--- Restore the files to before that turn (and, with `conversation`, cut the history there); with mode 'undo_turn',
--- reverse only that turn's own changes (later ones stay; conflicting files are left). Preview first, then confirm.
---@param mode boolean|string true or 'restore_conversation'; false, nil or 'restore'; or 'undo_turn'
function M.restore(chat, cl, cp, mode)
  if chat.busy then
    vim.notify('agent: a turn is running; stop it first (:AgentStop)', vim.log.levels.WARN)
    return
  end
  local conversation = mode == true or mode == 'restore_conversation'
  local only_turn = mode == 'undo_turn'
  local what = only_turn and 'Undo only this turn' or conversation and 'Restore files and conversation' or 'Restore files'
  local header = only_turn
      and {
        '# Undoing only this turn: ' .. M.label(cp),
        '# Its own changes are reversed, later ones stay (the diff goes from now to after the undo):',
      }
    or {
      '# Restoring to before: ' .. M.label(cp),
      '# These files would change back (the diff goes from now to then):',
    }
  preview_then_run(chat, cl, {
    method = 'agent/_checkpoints/restore',
    params = { checkpointId = cp.id, conversation = conversation, onlyTurn = only_turn },
    id = cp.id,
    session_id = cp.sessionId,
    what = what,
    header = header,
    conversation = conversation,
  })
end

--- Undo the last restore of this chat's session (or workspace): reverse only what that restore changed.
function M.undo_restore(chat, cl)
  if chat.busy then
    vim.notify('agent: a turn is running; stop it first (:AgentStop)', vim.log.levels.WARN)
    return
  end
  preview_then_run(chat, cl, {
    method = 'agent/_checkpoints/undoRestore',
    params = chat.session_id and { sessionId = chat.session_id } or { cwd = chat.root },
    id = 'undo-restore',
    what = 'Undo the last restore',
    header = { '# Undoing the last restore (files changed since it stay as they are):' },
  })
end

M.ACTIONS = {
  { id = 'review', label = 'Review what this turn changed' },
  { id = 'undo_turn', label = 'Undo only this turn (later changes stay)' },
  { id = 'restore', label = 'Back to this point: restore the files to before this turn' },
  { id = 'restore_conversation', label = 'Back to this point: the files and the conversation' },
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
    local last_restore = nil
    for i = #list, 1, -1 do
      if list[i].origin == 'restore' then
        last_restore = last_restore or list[i]
      else
        table.insert(newest_first, list[i])
      end
    end
    if last_restore then
      table.insert(newest_first, 1, { undo_restore = true, createdAt = last_restore.createdAt })
    end
    vim.ui.select(newest_first, {
      prompt = 'Checkpoint (before the turn)',
      kind = 'agent_checkpoint',
      format_item = function(cp)
        return cp.undo_restore and ('Undo the last restore (%s)'):format(when(cp.createdAt)) or M.label(cp)
      end,
    }, function(cp)
      if not cp then
        return
      elseif cp.undo_restore then
        return M.undo_restore(chat, cl)
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
          M.restore(chat, cl, cp, action.id)
        end
      end)
    end)
  end)
end

return M
