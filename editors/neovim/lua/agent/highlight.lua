---@mod agent.highlight Highlight groups of the chat and the approval window, and markdown highlighting.
local M = {}

-- `default = true`: a colorscheme or the user's own :highlight wins.
local links = {
  AgentToolPending = 'DiagnosticWarn',
  AgentToolRunning = 'DiagnosticInfo',
  AgentToolDone = 'DiagnosticOk',
  AgentToolFailed = 'DiagnosticError',
  AgentToolRejected = 'Comment', -- a "no" is a decision, not an error
  AgentDiffAdd = 'Added',
  AgentDiffDelete = 'Removed',
  AgentDiffHunk = 'Special',
  AgentNote = 'Comment',
  AgentHelp = 'Comment',
  AgentApprovalKey = 'Special',
  AgentApprovalWaiting = 'DiagnosticWarn',
}

function M.define()
  for name, link in pairs(links) do
    if vim.fn.hlexists(link) == 0 then
      link = link == 'Added' and 'DiffAdd' or link == 'Removed' and 'DiffDelete' or 'Normal' -- before Neovim 0.10
    end
    vim.api.nvim_set_hl(0, name, { link = link, default = true })
  end
end

local status_groups = {
  pending = 'AgentToolPending',
  in_progress = 'AgentToolRunning',
  completed = 'AgentToolDone',
  failed = 'AgentToolFailed',
  rejected = 'AgentToolRejected',
}

function M.status_group(status)
  return status_groups[status] or 'AgentToolPending'
end

--- The group of one line of a unified diff (or nil).
function M.diff_group(line)
  if vim.startswith(line, '+++') or vim.startswith(line, '---') then
    return 'AgentDiffHunk'
  end
  local c = line:sub(1, 1)
  if c == '+' then
    return 'AgentDiffAdd'
  elseif c == '-' then
    return 'AgentDiffDelete'
  elseif c == '@' then
    return 'AgentDiffHunk'
  end
end

--- Treesitter markdown (fenced code blocks get their language injected) for a chat buffer; the regex syntax when
--- no markdown parser is installed. Never raises.
---@return boolean true when treesitter highlights the buffer
function M.markdown(buf)
  local ok = pcall(vim.treesitter.start, buf, 'markdown')
  if not ok then
    pcall(function()
      vim.bo[buf].syntax = 'markdown'
    end)
  end
  return ok
end

return M
