---@mod agent.permission Answers agent/session/request_permission: vim.ui.select over the four ACP options.
local config = require('agent.config')

local M = {}

local function find(options, kind)
  for _, opt in ipairs(options) do
    if opt.kind == kind then
      return opt
    end
  end
end

local function selected(opt)
  if not opt then
    return { outcome = { outcome = 'cancelled' } }
  end
  return { outcome = { outcome = 'selected', optionId = opt.optionId } }
end

local function describe(tool_call)
  local title = tool_call.title or tool_call.toolCallId or 'a tool'
  local input = tool_call.rawInput
  if type(input) == 'table' then
    if input.command then
      return ('%s: %s'):format(title, input.command)
    end
  end
  return title
end

--- Wait for an asynchronous picker (telescope, snacks, dressing) without blocking Neovim.
--- Server requests run in a coroutine (Neovim ≥ 0.10), so we yield; outside one we fall back to vim.wait.
local function pick(items, opts)
  local co, is_main = coroutine.running()
  local done, choice, yielded = false, nil, false
  vim.ui.select(items, opts, function(item)
    if done then
      return
    end
    done, choice = true, item
    if yielded then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end)
  if not done then
    if co and not is_main then
      yielded = true
      coroutine.yield()
    else
      vim.wait(24 * 3600 * 1000, function()
        return done
      end, 50)
    end
  end
  return choice
end

---@param params table RequestPermissionRequest
---@return table RequestPermissionResponse
function M.ask(params, _)
  local options = params.options or {}
  local chat = require('agent.chat')
  local policy = config.options.approval
  if policy == 'allow' then
    return selected(find(options, 'allow_once') or find(options, 'allow_always'))
  elseif policy == 'reject' then
    return selected(find(options, 'reject_once') or find(options, 'reject_always'))
  end
  local choice = pick(options, {
    prompt = 'Agent wants to: ' .. describe(params.toolCall or {}),
    kind = 'agent_permission',
    format_item = function(opt)
      return opt.name
    end,
  })
  chat.note(params.sessionId, describe(params.toolCall or {}) .. ': ' .. (choice and choice.name or 'cancelled'))
  return selected(choice)
end

return M
