---@mod agent.message A message for Neovim's message area: one line that fits it. A longer or multi-line message ends
--- in the "Press ENTER or type command to continue" prompt, which takes the next key typed for something else; what
--- does not fit goes to the chat, where it stays readable.
local M = {}

--- `text` as one line of at most `width` display cells (cut with …).
function M.one_line(text, width)
  local line = vim.trim((tostring(text):gsub('%s*\n%s*', '; ')))
  if vim.fn.strdisplaywidth(line) <= width then
    return line
  end
  return vim.fn.strcharpart(line, 0, math.max(1, width - 1)) .. '…'
end

--- vim.notify with one line that fits the message area.
function M.brief(text, level)
  local room = (vim.v.echospace and vim.v.echospace > 0) and vim.v.echospace or (vim.o.columns - 12)
  vim.notify(M.one_line(text, room - 1), level or vim.log.levels.INFO)
end

return M
