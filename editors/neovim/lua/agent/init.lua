---@mod agent agent.nvim: a local-first coding agent (agent-server) in Neovim.
local config = require('agent.config')
local client = require('agent.client')

local M = {}

local configured = false

--- Configure the plugin; see `:help agent-setup`. Calling it again replaces the options.
---@param opts table|nil
function M.setup(opts)
  config.set(opts)
  configured = true
  local group = vim.api.nvim_create_augroup('agent_nvim', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(ev)
      client.attach_buffer(ev.buf)
    end,
  })
  vim.api.nvim_create_autocmd('LspProgress', {
    group = group,
    callback = function(ev)
      M._on_progress(ev)
    end,
  })
  require('agent.completion').setup(group)
  require('agent.tabline').setup(config.options.tabline)
end

local function ensure_setup()
  if not configured then
    M.setup({})
  end
end

--- Run fn(chat, lsp_client) once the workspace's server is ready.
local function with_chat(fn, root)
  ensure_setup()
  client.ensure(root, function(cl, st)
    fn(require('agent.chat').get(st), cl)
  end)
end

--- The workspace's chat at once, while its server may still be starting (nil when it cannot start).
local function chat_now(root)
  ensure_setup()
  local st = client.ensure(root)
  if not st then
    return nil
  end
  local chat_mod = require('agent.chat')
  local chat = chat_mod.get(st)
  if not chat.model_asked then
    chat.model_asked = true
    client.when_ready(st.id, function(cl)
      -- The model for the top bar; quietly skipped when the LLM server is down (the first prompt says so).
      client.request(cl, 'agent/_models/list', vim.empty_dict(), function(err, result)
        if not err and result and type(result.current) == 'string' and not chat.model then
          chat.model = result.current
        end
        chat_mod.refresh(chat)
      end)
    end)
  end
  return chat
end

function M._on_progress(ev)
  if not config.options.notify_progress then
    return
  end
  local cl = ev.data and vim.lsp.get_client_by_id(ev.data.client_id)
  if not cl or cl.name ~= 'agent-server' then
    return
  end
  local value = ev.data.params and ev.data.params.value or {}
  local chat = require('agent.chat').by_client[cl.id]
  if value.kind == 'begin' then
    vim.notify('agent: ' .. (value.title or 'working') .. '…', vim.log.levels.INFO)
  elseif value.kind == 'end' then
    vim.notify('agent: ' .. (value.message or 'done'), vim.log.levels.INFO)
  end
  -- Without a progress UI (fidget.nvim), "N of M files" goes to the chat's top bar and the command line.
  M.progress = value.kind ~= 'end' and (value.message or value.title) or nil
  if M.progress and value.title and value.message then
    M.progress = value.title .. ': ' .. value.message
  end
  if chat then
    chat.progress = M.progress
    require('agent.chat').refresh(chat)
  end
  if value.kind == 'report' and M.progress and not package.loaded['fidget'] then
    vim.api.nvim_echo({ { 'agent: ' .. M.progress } }, false, {})
  end
end

--- :AgentChat [prompt] — open or focus the chat; with a prompt, send it.
---@param prompt string|nil
function M.chat(prompt)
  local chat = chat_now()
  if not chat then
    return
  end
  local chat_mod = require('agent.chat')
  chat_mod.open(chat, true) -- remembers the buffer #buffer refers to
  if prompt and vim.trim(prompt) ~= '' then
    local blocks, problems = require('agent.mentions').blocks(prompt, chat.root, chat.origin_buf)
    if #problems > 0 then
      -- Not sent, and not lost: the prompt waits in the input to be fixed and sent, as a typed one does.
      chat.set_input(prompt)
      vim.notify('agent: ' .. table.concat(problems, '\n'), vim.log.levels.ERROR)
      return
    end
    chat_mod.send(chat, blocks)
  end
end

local function utf16_col(line, byte_col)
  local ok, a, b = pcall(vim.str_utfindex, line, 'utf-16', byte_col)
  if ok and type(a) == 'number' and b == nil then
    return a
  end
  local ok2, _, u16 = pcall(vim.str_utfindex, line, byte_col)
  return ok2 and u16 or byte_col
end

--- The selection between line1 and line2 (1-based), character-exact after a charwise visual selection.
local function selection(bufnr, line1, line2)
  local lines = vim.api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false)
  local vs, ve = vim.fn.getpos("'<"), vim.fn.getpos("'>")
  local start_char, end_line, end_char = 0, line2 - 1, nil
  if vim.fn.visualmode() == 'v' and vs[2] == line1 and ve[2] == line2 and #lines > 0 then
    local first_full, last_full = lines[1], lines[#lines]
    local end_byte = math.min(ve[3], #last_full)
    -- The end column is inclusive and may sit on the first byte of a multibyte character.
    end_byte = end_byte + (#last_full > 0 and (vim.str_utf_end(last_full, math.max(end_byte, 1)) or 0) or 0)
    lines[#lines] = last_full:sub(1, end_byte)
    lines[1] = lines[1]:sub(vs[3])
    if #lines == 1 then
      lines[1] = first_full:sub(vs[3], end_byte)
    end
    start_char = utf16_col(first_full, vs[3] - 1)
    end_char = utf16_col(last_full, end_byte)
  else
    local last_full = lines[#lines] or ''
    end_char = utf16_col(last_full, #last_full)
  end
  return table.concat(lines, '\n'), {
    start = { line = line1 - 1, character = start_char },
    ['end'] = { line = end_line, character = end_char },
  }
end

--- :'<,'>AgentAsk [question] — ask about the selection (an ACP resource block with _meta.range).
function M.ask(line1, line2, question)
  ensure_setup()
  local bufnr = vim.api.nvim_get_current_buf()
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' then
    vim.notify('agent: :AgentAsk needs a buffer with a file name', vim.log.levels.WARN)
    return
  end
  local text, range = selection(bufnr, line1, line2)
  local ft = vim.bo[bufnr].filetype
  local root = client.root_for(bufnr)
  local function go(q)
    if not q or vim.trim(q) == '' then
      return
    end
    local blocks = {
      {
        type = 'resource',
        resource = { uri = vim.uri_from_fname(fname), text = text, mimeType = ft ~= '' and ('text/x-' .. ft) or 'text/plain' },
        _meta = { range = range },
      },
      { type = 'text', text = q },
    }
    local chat = chat_now(root)
    if chat then
      local chat_mod = require('agent.chat')
      chat_mod.open(chat, false)
      chat_mod.send(chat, blocks) -- the chat follows the answer
    end
  end
  if question and vim.trim(question) ~= '' then
    go(question)
  else
    vim.ui.input({ prompt = 'Ask the agent: ' }, go)
  end
end

--- :AgentStop — cancel the running turn of this workspace.
function M.stop()
  ensure_setup()
  local st = client.running()
  local chat = st and require('agent.chat').by_client[st.id]
  if not chat then
    for _, c in pairs(require('agent.chat').by_client) do
      if c.busy then
        chat = c
      end
    end
  end
  if not chat then
    vim.notify('agent: nothing to stop', vim.log.levels.INFO)
    return
  end
  require('agent.chat').stop(chat)
end

--- :AgentReview — open the oldest waiting approval and move into it: only there do its keys answer.
function M.review()
  ensure_setup()
  require('agent.permission').review()
end

--- :AgentIndex — (re)build the workspace index; progress arrives as LSP work-done progress (LspProgress).
function M.index()
  with_chat(function(_, cl)
    client.call(cl, 'agent/_index/start', vim.empty_dict(), function(result)
      if result and result.started == false then
        vim.notify('agent: indexing is already running', vim.log.levels.INFO)
      end
    end)
  end)
end

--- :AgentSessions [words] — resume, search (titles and what was said) or delete a stored session of this workspace.
function M.sessions(query)
  with_chat(function(chat, cl)
    require('agent.sessions').pick(chat, cl, query)
  end)
end

--- :AgentModel — pick the model later prompts use.
function M.model()
  with_chat(function(chat, cl)
    client.call(cl, 'agent/_models/list', vim.empty_dict(), function(result)
      local models = result and result.models or {}
      if #models == 0 then
        vim.notify('agent: the LLM server lists no models', vim.log.levels.WARN)
        return
      end
      vim.ui.select(models, {
        prompt = 'Model (current: ' .. tostring(result.current) .. ')',
        kind = 'agent_model',
        format_item = function(m)
          local caps = {}
          if m.contextLength and m.contextLength ~= vim.NIL then
            table.insert(caps, ('%dk ctx'):format(math.floor(m.contextLength / 1024)))
          end
          if m.tools == true or m.tools == 'native' then
            table.insert(caps, 'tools')
          end
          if m.thinking == true then
            table.insert(caps, 'thinking')
          end
          local mark = m.name == result.current and '→ ' or '  '
          return mark .. m.name .. (#caps > 0 and ('  (' .. table.concat(caps, ', ') .. ')') or '')
        end,
      }, function(choice)
        if choice then
          client.call(cl, 'agent/_models/select', { model = choice.name }, function(sel)
            if sel then
              chat.model = sel.current
              require('agent.chat').refresh(chat)
              vim.notify('agent: model ' .. tostring(sel.current), vim.log.levels.INFO)
            end
          end)
        end
      end)
    end)
  end)
end

--- :AgentMode [name] — switch this chat's session to a mode (agent profile); no name: pick one.
function M.mode(name)
  with_chat(function(chat, cl)
    require('agent.modes').pick(chat, cl, name)
  end)
end

--- :AgentNewAgent[!] — create an agent profile from a short form and open its file (! for the user config dir).
function M.new_agent(user_scope)
  with_chat(function(chat, cl)
    require('agent.modes').new_agent(chat, cl, user_scope)
  end)
end

--- :AgentCheckpoints — review or undo what a turn of this chat's session changed.
function M.checkpoints()
  with_chat(function(chat, cl)
    require('agent.checkpoints').pick(chat, cl)
  end)
end

--- :AgentNew — start a fresh session in the chat.
function M.new()
  with_chat(function(chat)
    local chat_mod = require('agent.chat')
    chat_mod.new_session(chat)
    chat_mod.open(chat, true)
  end)
end

return M
