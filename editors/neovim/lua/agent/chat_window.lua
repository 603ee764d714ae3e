---@mod agent.chat_window The chat's windows: the chat and its input, opened by the layout option, and closed.
local config = require('agent.config')
local buffer = require('agent.chat_buffer')
local input = require('agent.chat_input')
local winbar = require('agent.chat_winbar')

local M = {}

local valid_win = buffer.valid_win
local input_buffer = input.buffer
local set_winbar = winbar.refresh

local function setup_window(win, fold)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = 'no'
  if fold then
    vim.wo[win].foldmethod = 'expr'
    vim.wo[win].foldexpr = "v:lua.require'agent.render'.foldexpr(v:lnum)"
    vim.wo[win].foldtext = "v:lua.require'agent.render'.foldtext()"
    vim.wo[win].foldlevel = 0
    vim.wo[win].foldminlines = 0 -- a one-line thought folds too
    vim.wo[win].foldenable = true
  end
end

--- Show the chat (and its input window); focus the input, in insert mode.
function M.open(chat, focus_input)
  local opts = config.options
  local cur = vim.api.nvim_get_current_buf()
  if not vim.b[cur].agent_chat and not vim.b[cur].agent_input then
    chat.origin_buf = cur -- what #buffer and #diagnostics refer to
  end
  if not valid_win(chat.win) then
    if opts.layout == 'current' then
      chat.win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(chat.win, chat.buf)
    else
      local cmd = opts.layout == 'below' and ('botright %dsplit'):format(opts.height) or ('botright %dvsplit'):format(opts.width)
      vim.cmd(cmd)
      chat.win = vim.api.nvim_get_current_win()
      vim.api.nvim_win_set_buf(chat.win, chat.buf)
    end
    setup_window(chat.win, opts.fold_thinking)
  end
  if not valid_win(chat.input_win) then
    vim.api.nvim_set_current_win(chat.win)
    vim.cmd(('belowright %dsplit'):format(opts.input_height))
    chat.input_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(chat.input_win, input_buffer(chat))
    setup_window(chat.input_win, false)
    vim.wo[chat.input_win].winbar = ('message · ' .. (opts.keymaps.send or '') .. ' sends'):gsub('%%', '%%%%')
    vim.wo[chat.input_win].winfixheight = true
  end
  set_winbar(chat)
  if focus_input == false then
    vim.api.nvim_set_current_win(chat.win)
  else
    vim.api.nvim_set_current_win(chat.input_win)
    vim.cmd('startinsert!') -- ready to type
  end
end

function M.close(chat)
  for _, w in ipairs({ chat.input_win, chat.win }) do
    if valid_win(w) and #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, w, true)
    end
  end
end

return M
