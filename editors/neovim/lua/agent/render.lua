---@mod agent.render Pure functions turning ACP updates into chat-buffer lines.
local M = {}

M.THOUGHT = '┊ ' -- prefix of reasoning lines (folded)
M.DETAIL = '  │ ' -- prefix of tool output lines (folded)

local icons = { pending = '…', in_progress = '⟳', completed = '✓', failed = '✗' }

local function split(text)
  return vim.split(text or '', '\n', { plain = true })
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
  end
end

--- Lines of one tool call block: a header with title, kind and status, then up to `max` lines of result.
---@param tc table merged ToolCall fields
---@param max integer
---@return string[]
function M.tool_lines(tc, max)
  local status = tc.status or 'pending'
  local title = tc.title or tc.kind or tc.toolCallId or 'tool'
  local header = ('▸ `%s` · %s · %s %s'):format(title, tc.kind or 'other', icons[status] or '', status)
  local lines = { header }
  local details = {}
  for _, item in ipairs(type(tc.content) == 'table' and tc.content or {}) do
    if item.type == 'diff' then
      local old, new = split(item.oldText or ''), split(item.newText or '')
      table.insert(details, ('diff %s (%d → %d lines)'):format(vim.fn.fnamemodify(item.path or '', ':.'), item.oldText and #old or 0, #new))
      for _, l in ipairs(new) do
        table.insert(details, '+' .. l)
      end
    else
      local text = content_text(item.content) or content_text(item)
      if text then
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
  return lines
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
      local range = b._meta and b._meta.range
      local where = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':.')
      if range then
        where = ('%s:%d-%d'):format(where, range.start.line + 1, range['end'].line + 1)
      end
      table.insert(parts, ('(selection: `%s`)'):format(where))
    elseif b.type == 'resource_link' then
      table.insert(parts, ('(file: `%s`)'):format(b.uri))
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
