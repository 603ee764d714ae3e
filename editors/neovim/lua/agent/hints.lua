---@mod agent.hints Key hints that fit a window's width: most important first, shortened, then wrapped onto more
--- rows; a key and its label are never split or cut (Neovim cuts a too-long winbar or footer mid-word).
local M = {}

---@class agent.Hint
---@field key string
---@field label string
---@field short? string a shorter label, used when the full ones do not fit

local SEP = '  '

local function text(item, short)
  return item.key .. ' ' .. (short and item.short or item.label)
end

--- The hints as rows of items, each row at most `width` display cells when joined with two spaces: one row with
--- the full labels if it fits, else one with the short labels, else the short labels wrapped onto several rows.
---@param items agent.Hint[] in order of importance
---@param width integer
---@return agent.Hint[][] rows, boolean short
function M.rows(items, width)
  for _, short in ipairs({ false, true }) do
    local parts = vim.tbl_map(function(item)
      return text(item, short)
    end, items)
    if vim.fn.strdisplaywidth(table.concat(parts, SEP)) <= width then
      return { items }, short
    end
  end
  local rows, row, used = {}, {}, 0
  for _, item in ipairs(items) do
    local w = vim.fn.strdisplaywidth(text(item, true))
    if #row > 0 and used + #SEP + w > width then
      rows[#rows + 1], row, used = row, {}, 0
    end
    used = used + (#row > 0 and #SEP or 0) + w
    row[#row + 1] = item
  end
  if #row > 0 then
    rows[#rows + 1] = row
  end
  return rows, true
end

--- One row as a string.
---@param row agent.Hint[]
---@param short boolean
function M.join(row, short)
  return table.concat(
    vim.tbl_map(function(item)
      return text(item, short)
    end, row),
    SEP
  )
end

return M
