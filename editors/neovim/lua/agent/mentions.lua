---@mod agent.mentions Context from the editor in a message: `@path`, `#buffer`, `#diagnostics` -> ACP content blocks.
local M = {}

-- A file up to this size goes in whole (an ACP `resource`); a bigger one as a link the agent can read in parts.
M.EMBED_LIMIT = 16 * 1024

local function mime(path)
  local ft = vim.filetype.match({ filename = path })
  return ft and ('text/x-' .. ft) or 'text/plain'
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
end

--- The text of a file: its buffer when loaded (unsaved changes included), else the disk.
local function file_text(path)
  local bufnr = vim.fn.bufnr(path)
  if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) then
    return buffer_text(bufnr)
  end
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

local function file_block(path)
  local uri = vim.uri_from_fname(path)
  local text = file_text(path)
  if text and #text <= M.EMBED_LIMIT and not text:find('\0', 1, true) then
    return { type = 'resource', resource = { uri = uri, text = text, mimeType = mime(path) } }
  end
  return { type = 'resource_link', uri = uri, name = vim.fs.basename(path) }
end

local severities = { 'error', 'warning', 'info', 'hint' }

local function diagnostics_block(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local source = d.source and (' [' .. d.source .. ']') or ''
    table.insert(lines, ('%d:%d %s: %s%s'):format(d.lnum + 1, d.col + 1, severities[d.severity] or '?', d.message, source))
  end
  if #lines == 0 then
    table.insert(lines, 'no diagnostics')
  end
  return {
    type = 'resource',
    resource = { uri = vim.uri_from_fname(name) .. '#diagnostics', text = table.concat(lines, '\n'), mimeType = 'text/plain' },
  }
end

local function usable_buffer(bufnr)
  return bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_buf_get_name(bufnr) ~= ''
    and vim.bo[bufnr].buftype == ''
end

--- The content blocks of a typed message: the text as typed, then one block per mention.
--- `@path` (relative to the workspace root, or absolute) attaches a file; `#buffer` the buffer the chat was opened
--- from, `#diagnostics` its diagnostics; `#image path` a picture (agent.images). A mention of something that does
--- not exist stays plain text, except `#image`: a picture that cannot be attached is a problem the caller shows.
---@param text string
---@param root string
---@param origin integer|nil buffer the chat was opened from
---@return table[] blocks, string[] problems
function M.blocks(text, root, origin)
  local problems = {}
  local blocks = { { type = 'text', text = text } }
  local seen = {}
  local function add(key, make)
    if not seen[key] then
      local block = make()
      if block then
        seen[key] = true
        table.insert(blocks, block)
      end
    end
  end
  local words = vim.split(text, '%s+', { trimempty = true })
  for i, word in ipairs(words) do
    local mention = word:gsub('[%.,;:!?%)]+$', '')
    if mention == '#image' then
      local arg = words[i + 1] and words[i + 1]:gsub('[,;!?%)]+$', '') or nil
      local block, err = require('agent.images').block(arg, root)
      if block then
        add('#image ' .. block.uri, function()
          return block
        end)
      else
        table.insert(problems, err)
      end
    elseif mention:sub(1, 1) == '@' and #mention > 1 then
      local rel = mention:sub(2)
      local path = vim.fs.normalize(rel:sub(1, 1) == '/' and rel or (root .. '/' .. rel))
      if vim.fn.filereadable(path) == 1 then
        add(path, function()
          return file_block(path)
        end)
      end
    elseif mention == '#buffer' and usable_buffer(origin) then
      add('#buffer', function()
        return file_block(vim.api.nvim_buf_get_name(origin))
      end)
    elseif mention == '#diagnostics' and usable_buffer(origin) then
      add('#diagnostics', function()
        return diagnostics_block(origin)
      end)
    end
  end
  return blocks, problems
end

--- Workspace files for `@` completion (git's list when the root is a repository; a bounded walk otherwise).
function M.files(root)
  local out = {}
  if vim.fn.isdirectory(root .. '/.git') == 1 and vim.fn.executable('git') == 1 then
    local res = vim.system({ 'git', 'ls-files', '--cached', '--others', '--exclude-standard' }, { cwd = root, text = true })
      :wait(5000)
    if res.code == 0 then
      return vim.split(res.stdout or '', '\n', { trimempty = true })
    end
  end
  for name, kind in vim.fs.dir(root, { depth = 6 }) do
    if kind == 'file' and not name:match('^%.git/') then
      table.insert(out, name)
      if #out >= 5000 then
        break
      end
    end
  end
  return out
end

--- 'completefunc' of the input buffer: `@par<C-x><C-u>` completes workspace paths; `#` completes buffer/diagnostics.
function M.complete(findstart, base)
  if findstart == 1 then
    local line = vim.api.nvim_get_current_line():sub(1, vim.api.nvim_win_get_cursor(0)[2])
    local start = line:find('[@#][^%s]*$')
    return start and (start - 1) or -3 -- 0-based start column; -3: no completion here, silently
  end
  local items = {}
  if base:sub(1, 1) == '#' then
    for _, word in ipairs({ '#buffer', '#diagnostics', '#image' }) do
      if vim.startswith(word, base) then
        table.insert(items, word)
      end
    end
    return items
  end
  local needle = base:sub(2):lower()
  local root = vim.b.agent_root or vim.fn.getcwd()
  for _, path in ipairs(M.files(root)) do
    if needle == '' or path:lower():find(needle, 1, true) then
      table.insert(items, { word = '@' .. path, menu = 'file' })
      if #items >= 200 then
        break
      end
    end
  end
  return items
end

return M
