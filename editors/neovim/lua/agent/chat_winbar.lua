---@mod agent.chat_winbar The chat's top bar: model, mode, title, context use, progress, and what the turn waits for.
local config = require('agent.config')
local client = require('agent.client')
local valid_win = require('agent.chat_buffer').valid_win

local M = {}

--- The display name of the chat's current mode (agent profile), or nil before a session told it.
function M.mode_name(chat)
  local modes = chat.modes
  if type(modes) ~= 'table' or type(modes.currentModeId) ~= 'string' then
    return nil
  end
  for _, m in ipairs(type(modes.availableModes) == 'table' and modes.availableModes or {}) do
    if m.id == modes.currentModeId and type(m.name) == 'string' then
      return m.name
    end
  end
  return modes.currentModeId
end

--- Remember the modes a session/new or session/load answered with (ACP's SessionModeState).
function M.set_modes(chat, modes)
  if type(modes) == 'table' and type(modes.currentModeId) == 'string' then
    chat.modes = modes
  end
end

local function set_winbar(chat)
  if not valid_win(chat.win) then
    return
  end
  local parts = { 'agent' }
  if chat.model then
    table.insert(parts, chat.model)
  end
  local mode = M.mode_name(chat)
  if mode then
    table.insert(parts, 'mode ' .. mode)
  end
  if chat.title then
    table.insert(parts, chat.title)
  end
  if chat.usage and chat.usage.size and chat.usage.size > 0 then
    local usage = ('context %d%% (%d/%d)'):format(math.floor(100 * chat.usage.used / chat.usage.size), chat.usage.used, chat.usage.size)
    -- The rules files' share (AGENTS.md, ...), and a mark when the window forced the server to cut some.
    local rules = vim.tbl_get(chat.usage, '_meta', 'agentServer', 'rules')
    if type(rules) == 'table' and type(rules.tokens) == 'number' then
      local cut = type(rules.cut) == 'table' and #rules.cut > 0 and ', cut' or ''
      usage = usage .. (' · rules %d%s'):format(rules.tokens, cut)
    end
    table.insert(parts, usage)
  end
  if chat.progress then
    table.insert(parts, chat.progress)
  end
  if chat.busy and not client.is_ready(chat.client_id) then
    table.insert(parts, '◌ starting the agent…')
  elseif chat.waiting then
    local key = config.options.keymaps.review -- short: the bar is cut from the left when it is too long
    table.insert(parts, '? ' .. chat.waiting .. ' (' .. (key or ':AgentReview') .. ')')
  elseif chat.busy then
    table.insert(parts, '● working  (:AgentStop)')
  end
  vim.wo[chat.win].winbar = (table.concat(parts, ' · '):gsub('%%', '%%%%'))
end

--- Redraw the top bar (after a model switch, a resume, a new session, progress).
function M.refresh(chat)
  set_winbar(chat)
end

return M
