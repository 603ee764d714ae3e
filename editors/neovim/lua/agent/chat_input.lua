---@mod agent.chat_input The chat's input buffer (send, and text put back to fix) and the keys of both chat buffers.
local config = require('agent.config')
local buffer = require('agent.chat_buffer')

local M = {}

local valid_buf, valid_win = buffer.valid_buf, buffer.valid_win

local function map(buf, mode, lhs, fn, desc)
  if lhs then
    vim.keymap.set(mode, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = desc })
  end
end

--- The keys the chat and its input share: stop the turn, close the chat, open the waiting approval.
--- (Looked up in agent.chat when pressed: it holds the public functions.)
function M.map_keys(chat, buf)
  local keys = config.options.keymaps
  map(buf, 'n', keys.stop, function() require('agent.chat').stop(chat) end, 'agent: stop the turn')
  map(buf, 'n', keys.close, function() require('agent.chat').close(chat) end, 'agent: close the chat')
  map(buf, 'n', keys.review, function() require('agent.chat').review() end, 'agent: open the waiting approval')
end

--- The chat's input buffer, created on first use.
local function input_buffer(chat)
  if valid_buf(chat.input_buf) then
    return chat.input_buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  vim.b[buf].agent_input = true
  vim.b[buf].agent_root = chat.root
  vim.bo[buf].completefunc = "v:lua.require'agent.commands'.complete" -- /command or @path, then <C-x><C-u>
  pcall(vim.api.nvim_buf_set_name, buf, 'agent://input/' .. vim.fs.basename(chat.root) .. '-' .. chat.client_id)
  local keys = config.options.keymaps
  local function send()
    local text = vim.trim(table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n'))
    if text == '' then
      return
    end
    local blocks, problems = require('agent.mentions').blocks(text, chat.root, chat.origin_buf)
    if #problems > 0 then -- the message stays in the input, to fix and send again
      vim.notify('agent: ' .. table.concat(problems, '\n'), vim.log.levels.ERROR)
      return
    end
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
    require('agent.chat').send(chat, blocks) -- <C-s> keeps insert mode: the next message can be typed at once
  end
  --- Put text into the input (a prompt that could not be sent stays there to fix), cursor at its end.
  chat.set_input = function(text)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
    if valid_win(chat.input_win) then
      local last = vim.api.nvim_buf_line_count(buf)
      vim.api.nvim_win_set_cursor(chat.input_win, { last, #vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] })
    end
  end
  map(buf, 'n', keys.send, send, 'agent: send the message')
  map(buf, 'i', keys.send_insert, send, 'agent: send the message')
  M.map_keys(chat, buf)
  chat.input_buf = buf
  return buf
end
M.buffer = input_buffer

return M
