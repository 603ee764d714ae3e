---@mod agent.render Pure functions turning ACP updates into chat-buffer lines.
local M = {}

M.THOUGHT = '┊ ' -- prefix of reasoning lines (folded)
M.DETAIL = '  │ ' -- prefix of tool output lines (folded)

local icons = { pending = '…', in_progress = '⟳', completed = '✓', failed = '✗', rejected = '⊘' }

local function split(text)
  -- CRLF text (a Windows file, a command's output) is shown without its `\r`: no `^M` at each line's end.
  local lines = vim.split(((text or ''):gsub('\r\n', '\n')), '\n', { plain = true })
  if #lines > 1 and lines[#lines] == '' then
    table.remove(lines) -- "a\nb\n" is two lines
  end
  return lines
end

local function content_text(block)
  if type(block) ~= 'table' then
    return nil
  end
  if block.type == 'text' then
    return block.text
  elseif block.type == 'resource' and type(block.resource) == 'table' then
    return block.resource.text
  elseif block.type == 'resource_link' then
    return block.uri
  elseif block.type == 'image' then
    return ('\n(image: %s)'):format(block.mimeType or '?') -- a replayed picture: named on its own line, not drawn
  end
end

--- Why a call did not run although nothing failed (the user or a policy said no), or nil.
--- The server says so in `_meta.rejected` (ACP has no "rejected" status); `tc.rejected` is what this editor knows
--- from its own approval window.
---@return string|nil reason
function M.rejection(tc)
  if tc.status ~= 'failed' then
    return nil
  end
  local meta = type(tc._meta) == 'table' and tc._meta.rejected
  if type(meta) == 'table' then
    return type(meta.reason) == 'string' and meta.reason or 'rejected'
  end
  return tc.rejected
end

--- The diff lines of one ACP `diff` content item (a header line first).
function M.diff_lines(item)
  local out = {}
  local new = split(item.newText or '')
  local path = vim.fn.fnamemodify(item.path or '', ':.')
  if item.oldText == nil or item.oldText == vim.NIL then
    table.insert(out, ('new file %s (%d lines)'):format(path, #new))
    for _, l in ipairs(new) do
      table.insert(out, '+' .. l)
    end
  else
    table.insert(out, ('diff %s'):format(path))
    vim.list_extend(out, M.unified(item.oldText, item.newText or ''))
  end
  return out
end

--- Lines of one tool call block: a header with title, kind and status, then up to `max` lines of result.
--- The second value is the status the header shows ('rejected' for a declined call), for highlighting.
---@param tc table merged ToolCall fields
---@param max integer
---@return string[], string
function M.tool_lines(tc, max)
  local status = tc.status or 'pending'
  local reason = M.rejection(tc)
  if reason then
    status = 'rejected'
  end
  local title = tc.title or tc.kind or tc.toolCallId or 'tool'
  local header = ('▸ `%s` · %s · %s %s'):format(title, tc.kind or 'other', icons[status] or '', status)
  if reason then
    header = header .. ': ' .. reason
  elseif status == 'pending' and tc.awaiting then
    header = header .. ' · awaiting your approval'
  end
  local lines = { header }
  local details = {}
  for _, item in ipairs(type(tc.content) == 'table' and tc.content or {}) do
    if item.type == 'diff' then
      vim.list_extend(details, M.diff_lines(item))
    else
      local text = content_text(item.content) or content_text(item)
      -- A rejected call's "Error: ..." result says nothing the header does not.
      if text and not (reason and vim.startswith(text, 'Error:')) then
        vim.list_extend(details, split(text))
      elseif item.type == 'terminal' then
        table.insert(details, 'terminal ' .. tostring(item.terminalId))
      end
    end
  end
  while #details > 0 and details[#details] == '' do
    table.remove(details)
  end
  for i, l in ipairs(details) do
    if i > max then
      table.insert(lines, M.DETAIL .. ('… %d more lines'):format(#details - max))
      break
    end
    table.insert(lines, M.DETAIL .. l)
  end
  return lines, status
end

--- The hunks of a unified diff (no file headers), or the new text when no diff function exists.
function M.unified(old, new)
  local diff = (vim.text and vim.text.diff) or vim.diff
  local norm = function(t)
    return t:sub(-1) == '\n' and t or (t .. '\n')
  end
  local ok, out = pcall(diff, norm(old), norm(new), { ctxlen = 1 })
  if not ok or type(out) ~= 'string' then
    return vim.tbl_map(function(l)
      return '+' .. l
    end, split(new))
  end
  return split(out)
end

local marks = { completed = '[x]', in_progress = '[~]', pending = '[ ]' }

---@param entries table[] plan entries {content, priority, status}
function M.plan_lines(entries)
  local lines = { '**Plan**' }
  for _, e in ipairs(entries or {}) do
    local text = split(e.content or '')[1]
    table.insert(lines, ('- %s %s'):format(marks[e.status] or '[ ]', text))
  end
  return lines
end

--- The text of a prompt block as the chat shows it.
function M.prompt_text(blocks)
  local parts = {}
  for _, b in ipairs(blocks) do
    if b.type == 'text' then
      table.insert(parts, b.text)
    elseif b.type == 'resource' then
      local uri = b.resource and b.resource.uri or ''
      local fragment = uri:match('#(.*)$')
      local range = b._meta and b._meta.range
      local ok, fname = pcall(vim.uri_to_fname, (uri:gsub('#.*$', '')))
      local where = vim.fn.fnamemodify(ok and fname or uri, ':.')
      local kind = fragment or 'file'
      if range then
        kind = 'selection'
        where = ('%s:%d-%d'):format(where, range.start.line + 1, range['end'].line + 1)
      end
      table.insert(parts, ('(%s: `%s`)'):format(kind, where))
    elseif b.type == 'resource_link' then
      local ok, fname = pcall(vim.uri_to_fname, b.uri)
      table.insert(parts, ('(file: `%s`)'):format(vim.fn.fnamemodify(ok and fname or b.uri, ':.')))
    elseif b.type == 'image' then
      local ok, fname = pcall(vim.uri_to_fname, b.uri or '')
      local name = ok and b.uri and vim.fn.fnamemodify(fname, ':.') or b.mimeType or 'image'
      table.insert(parts, ('(image: `%s`)'):format(name))
    end
  end
  return table.concat(parts, '\n')
end

M.content_text = content_text

--- foldexpr: reasoning and tool output fold away.
function M.foldexpr(lnum)
  local line = vim.fn.getline(lnum)
  if vim.startswith(line, M.THOUGHT) or vim.startswith(line, M.DETAIL) then
    return '1'
  end
  return '0'
end

function M.foldtext()
  local first = vim.fn.getline(vim.v.foldstart)
  local n = vim.v.foldend - vim.v.foldstart + 1
  if vim.startswith(first, M.THOUGHT) then
    return ('┊ thinking (%d lines)'):format(n)
  end
  return ('  │ output (%d lines)'):format(n)
end

return M
