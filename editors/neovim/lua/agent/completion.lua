---@mod agent.completion Inline completion: ghost text from agent-server's textDocument/inlineCompletion.
---
--- Neovim 0.12+ has vim.lsp.inline_completion: it is used as is. On 0.10/0.11 this module does the same job: a
--- request after each change in insert mode (the server debounces and lets the newer request cancel the older),
--- the suggestion drawn as extmarks (the first line inline at the cursor, the rest as virtual lines), the accept key
--- inserts it, and any typing, cursor move or leaving insert mode removes it and cancels the pending request
--- ($/cancelRequest, which also ends the server's generation).
local client_mod = require('agent.client')
local config = require('agent.config')

local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('agent_completion')
local has_native = vim.lsp.inline_completion ~= nil

---@class agent.CompletionState
---@field buf integer|nil
---@field row integer|nil  0-based
---@field col integer|nil  0-based byte column
---@field text string|nil  the suggestion on screen
---@field req integer|nil  the pending request id
---@field client table|nil the client of the pending request
local state = {}

M.enabled = true

local function opts()
  return config.options.completion or {}
end

--- The suggestion on screen, if any.
function M.visible()
  return state.text ~= nil and state.buf ~= nil and api.nvim_buf_is_valid(state.buf)
end

--- The id of the request in flight, if any (tests wait on it).
function M.pending()
  return state.req
end

function M.clear()
  if state.buf and api.nvim_buf_is_valid(state.buf) then
    api.nvim_buf_clear_namespace(state.buf, ns, 0, -1)
  end
  state.text = nil
end

function M.cancel()
  if state.req and state.client then
    local cl, id = state.client, state.req
    if vim.fn.has('nvim-0.11') == 1 then
      pcall(function()
        cl:cancel_request(id)
      end)
    else
      pcall(cl.cancel_request, id)
    end
  end
  state.req, state.client = nil, nil
end

local function show(buf, row, col, text)
  local lines = vim.split(text, '\n', { plain = true })
  local mark = { virt_text = { { lines[1], 'AgentGhostText' } }, virt_text_pos = 'inline', hl_mode = 'combine' }
  if #lines > 1 then
    local rest = {}
    for i = 2, #lines do
      rest[#rest + 1] = { { lines[i], 'AgentGhostText' } }
    end
    mark.virt_lines = rest
  end
  api.nvim_buf_set_extmark(buf, ns, row, col, mark)
  state.buf, state.row, state.col, state.text = buf, row, col, text
  api.nvim_exec_autocmds('User', { pattern = 'AgentCompletionShown', data = { text = text }, modeline = false })
end

local function attached_client(buf)
  local st = client_mod.running(client_mod.root_for(buf))
  if not st or not st.ready then
    return nil
  end
  local cl = client_mod.get(st.id)
  if cl and vim.lsp.buf_is_attached(buf, st.id) then
    return cl
  end
end

local function item_text(result)
  local items = result and (result.items or result) or {}
  local item = items[1]
  if type(item) ~= 'table' then
    return nil
  end
  local text = item.insertText
  if type(text) == 'table' then
    text = text.value
  end
  return type(text) == 'string' and text ~= '' and text or nil
end

--- Ask for a suggestion at the cursor (insert mode, a buffer attached to agent-server).
function M.request()
  M.cancel()
  M.clear()
  local buf = api.nvim_get_current_buf()
  if not M.enabled or api.nvim_get_mode().mode:sub(1, 1) ~= 'i' then
    return
  end
  local cl = attached_client(buf)
  if not cl then
    return
  end
  local win = api.nvim_get_current_win()
  local cursor = api.nvim_win_get_cursor(win)
  local tick = api.nvim_buf_get_changedtick(buf)
  local params = vim.lsp.util.make_position_params(win, cl.offset_encoding)
  params.context = { triggerKind = 2 } -- Automatic
  local id
  local function on_result(err, result)
    if state.req == id then
      state.req, state.client = nil, nil
    end
    if err or not M.enabled then
      return
    end
    local text = item_text(result)
    if not text or api.nvim_get_current_buf() ~= buf or api.nvim_buf_get_changedtick(buf) ~= tick then
      return -- the user typed meanwhile: this suggestion is for text that is gone
    end
    local now = api.nvim_win_get_cursor(win)
    if now[1] ~= cursor[1] or now[2] ~= cursor[2] or api.nvim_get_mode().mode:sub(1, 1) ~= 'i' then
      return
    end
    M.clear()
    show(buf, cursor[1] - 1, cursor[2], text)
  end
  local ok
  ok, id = client_mod.request(cl, 'textDocument/inlineCompletion', params, on_result)
  if ok then
    state.req, state.client = id, cl
  end
end

--- Insert the suggestion on screen; false when there is none.
function M.accept()
  if not M.visible() then
    return false
  end
  local buf, row, col, text = state.buf, state.row, state.col, state.text
  M.clear()
  local lines = vim.split(text, '\n', { plain = true })
  api.nvim_buf_set_text(buf, row, col, row, col, lines)
  local last = row + #lines - 1
  local last_col = #lines == 1 and col + #lines[1] or #lines[#lines]
  if api.nvim_get_current_buf() == buf then
    api.nvim_win_set_cursor(0, { last + 1, last_col })
  end
  return true
end

function M.dismiss()
  M.cancel()
  M.clear()
end

--- :AgentCompletion on|off|toggle
function M.set_enabled(value)
  if value == nil then
    value = not M.enabled
  end
  M.enabled = value
  if has_native then
    pcall(vim.lsp.inline_completion.enable, value)
  end
  if not value then
    M.dismiss()
  end
  vim.notify('agent: inline completion ' .. (value and 'on' or 'off'))
end

local function start_for(buf)
  if vim.bo[buf].buftype ~= '' or api.nvim_buf_get_name(buf) == '' then
    return
  end
  client_mod.ensure(client_mod.root_for(buf), function(cl)
    if has_native then
      pcall(vim.lsp.inline_completion.enable, M.enabled, { client_id = cl.id })
    elseif api.nvim_get_current_buf() == buf then
      M.request()
    end
  end)
end

--- A key the user (or another plugin, such as a completion menu) already maps in insert mode stays theirs: taking
--- it over would break their Tab. They can pick another key with completion.accept / completion.dismiss.
local function free(key)
  local current = key and vim.fn.maparg(key, 'i', false, true) or {}
  local desc = type(current) == 'table' and type(current.desc) == 'string' and current.desc or ''
  -- ours (a second setup) and Neovim's own default (0.11 maps <Tab> to vim.snippet.jump) are not the user's
  local taken = desc:sub(1, 6) ~= 'agent:' and desc:sub(1, 11) ~= 'vim.snippet'
  if key and vim.fn.maparg(key, 'i') ~= '' and taken then
    vim.notify(('agent: %s is already mapped in insert mode; inline completion leaves it alone (set completion.accept / completion.dismiss to another key)'):format(key), vim.log.levels.INFO)
    return false
  end
  return key ~= nil and key ~= false
end

local function map_keys(o)
  if free(o.accept) then
    vim.keymap.set('i', o.accept, function()
      if has_native then
        if not vim.lsp.inline_completion.get() then
          api.nvim_feedkeys(vim.keycode(o.accept), 'n', false)
        end
        return
      end
      if not M.accept() then
        api.nvim_feedkeys(vim.keycode(o.accept), 'n', false)
      end
    end, { desc = 'agent: accept the inline suggestion' })
  end
  if free(o.dismiss) then
    vim.keymap.set('i', o.dismiss, function()
      if M.visible() then
        M.dismiss()
      else
        api.nvim_feedkeys(vim.keycode(o.dismiss), 'n', false)
      end
    end, { desc = 'agent: dismiss the inline suggestion' })
  end
end

--- Called by require('agent').setup().
function M.setup(group)
  local o = opts()
  M.enabled = o.enabled ~= false
  api.nvim_set_hl(0, 'AgentGhostText', { link = 'Comment', default = true })
  if o.enabled == false then
    return
  end
  map_keys(o)
  api.nvim_create_autocmd('InsertEnter', {
    group = group,
    callback = function(ev)
      start_for(ev.buf)
    end,
  })
  if has_native then
    return
  end
  local scheduled = false
  api.nvim_create_autocmd({ 'TextChangedI', 'CursorMovedI' }, {
    group = group,
    callback = function()
      M.dismiss() -- typing (or moving) ends the suggestion on screen and the request in flight, at once
      if scheduled then
        return
      end
      scheduled = true -- one request for a keystroke that fires both events
      vim.schedule(function()
        scheduled = false
        M.request()
      end)
    end,
  })
  api.nvim_create_autocmd({ 'InsertLeave', 'BufLeave' }, {
    group = group,
    callback = function()
      M.dismiss()
    end,
  })
end

return M
