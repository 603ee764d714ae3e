---@mod agent.images `#image path` in a prompt -> an ACP `image` content block (checked here, before it is sent).
---
--- The path is relative to the workspace root (and must stay inside it once links are resolved) or absolute as the
--- user typed it. Only regular files up to `M.MAX_BYTES`, and only PNG, JPEG, GIF or WebP by their first bytes
--- (the server checks again). Anything else is an error the user reads; the prompt is then not sent.
local M = {}

M.MAX_BYTES = 5 * 1024 * 1024 -- the server's default llm.image_max_bytes

local function sniff(head)
  if head:sub(1, 8) == '\137PNG\r\n\26\n' then
    return 'image/png'
  elseif head:sub(1, 3) == '\255\216\255' then
    return 'image/jpeg'
  elseif head:sub(1, 6) == 'GIF87a' or head:sub(1, 6) == 'GIF89a' then
    return 'image/gif'
  elseif head:sub(1, 4) == 'RIFF' and head:sub(9, 12) == 'WEBP' then
    return 'image/webp'
  end
end

local function inside(path, root)
  return path == root or vim.startswith(path, root .. '/')
end

--- The image block for what followed `#image`, or nil and why not.
---@param arg string|nil
---@param root string
---@return table|nil block, string|nil err
function M.block(arg, root)
  if not arg or arg == '' then
    return nil, '#image needs a path: #image path/to/picture.png'
  end
  local typed = vim.fn.expand(arg)
  local absolute = typed:sub(1, 1) == '/'
  local path = vim.fs.normalize(absolute and typed or (root .. '/' .. typed))
  local real = vim.uv.fs_realpath(path)
  if not real then
    return nil, ('#image %s: no such file'):format(arg)
  end
  local real_root = vim.uv.fs_realpath(root) or root
  if not absolute and not inside(real, real_root) then
    return nil, ('#image %s: outside the workspace (type an absolute path to attach it anyway)'):format(arg)
  end
  local stat = vim.uv.fs_stat(real)
  if not stat or stat.type ~= 'file' then
    return nil, ('#image %s: not a regular file'):format(arg)
  end
  if stat.size > M.MAX_BYTES then
    return nil, ('#image %s: %d bytes, over the limit of %d'):format(arg, stat.size, M.MAX_BYTES)
  end
  local f = io.open(real, 'rb')
  if not f then
    return nil, ('#image %s: cannot be read'):format(arg)
  end
  local bytes = f:read(M.MAX_BYTES + 1) or ''
  f:close()
  local mime = sniff(bytes:sub(1, 12))
  if not mime then
    return nil, ('#image %s: not a PNG, JPEG, GIF or WebP picture'):format(arg)
  end
  return { type = 'image', mimeType = mime, data = vim.base64.encode(bytes), uri = vim.uri_from_fname(real) }
end

return M
