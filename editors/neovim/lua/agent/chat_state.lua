---@mod agent.chat_state The open chats: by LSP client id (one per workspace root) and by session id.
local M = {}

---@type table<integer, table> chat state by LSP client id
M.by_client = {}
---@type table<string, table> chat state by session id
M.by_session = {}

return M
