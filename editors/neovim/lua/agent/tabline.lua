---@mod agent.tabline Tab labels that say what the plugin's tabs hold. Neovim's own tab line shortens every path
--- component of a buffer name, so `agent://proposed/calc.py` reads "a//p/calc.py"; this one draws the same labels as
--- Neovim's (window count, `+` when modified, the current window's file) but names the plugin's buffers in words.
--- Installed by setup() only when 'tabline' is empty (a tab line of yours or of a plugin stays as it is); the
--- option `tabline = false` keeps Neovim's own.
local M = {}

M.EXPR = "%!v:lua.require'agent.tabline'.render()"

-- agent://<kind>/<rest> -> its label ('%s': the rest, e.g. the file's path).
local KINDS = {
  chat = 'agent chat',
  input = 'agent chat',
  proposed = '%s (proposed)',
  now = '%s (now)',
  approval = 'agent approval',
  checkpoint = 'checkpoint review',
  ['restore-preview'] = 'restore preview',
}

--- The label of a buffer: the plugin's in words, any other as Neovim's tab line shows it.
function M.label(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local kind, rest = name:match('^agent://([^/]+)/?(.*)$')
  if kind then
    local label = KINDS[kind] or ('agent ' .. kind)
    return (label:gsub('%%s', function()
      return rest
    end))
  end
  if name == '' then
    return vim.bo[bufnr].buftype == 'quickfix' and '[Quickfix List]' or '[No Name]'
  end
  return vim.fn.pathshorten(vim.fn.fnamemodify(name, ':~:.'))
end

local function tab_label(tab)
  local wins = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_config(w).relative == ''
  end, vim.api.nvim_tabpage_list_wins(tab))
  local modified = false
  for _, w in ipairs(wins) do
    modified = modified or vim.bo[vim.api.nvim_win_get_buf(w)].modified
  end
  local count = (#wins > 1 and tostring(#wins) or '') .. (modified and '+' or '')
  local label = M.label(vim.api.nvim_win_get_buf(vim.api.nvim_tabpage_get_win(tab)))
  return (count ~= '' and (count .. ' ') or '') .. label
end

--- 'tabline': one label per tab page (a click goes to it), the close button at the right end.
function M.render()
  local out = {}
  local current = vim.api.nvim_get_current_tabpage()
  for i, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local hl = tab == current and '%#TabLineSel#' or '%#TabLine#'
    out[#out + 1] = ('%s%%%dT %s '):format(hl, i, (tab_label(tab):gsub('%%', '%%%%')))
  end
  out[#out + 1] = '%#TabLineFill#%T%='
  if #vim.api.nvim_list_tabpages() > 1 then
    out[#out + 1] = '%#TabLine#%999XX'
  end
  return table.concat(out)
end

--- Use it when no other tab line is set (and not turned off); `false` gives Neovim's own back.
function M.setup(enabled)
  if enabled == false then
    if vim.o.tabline == M.EXPR then
      vim.o.tabline = ''
    end
  elseif vim.o.tabline == '' then
    vim.o.tabline = M.EXPR
  end
end

return M
