-- docs/editors.md's Neovim 0.7 configuration, run as a user's init.lua would run it (headless):
-- open modules/postgres/main.tf (the FileType autocommand starts tfphi and attaches it), attach a
-- second server (another tfphi, named `other`, standing in for terraform-ls), press K on
-- var.engine_version, and report the merged hover window's lines.
-- Inputs (environment): TFPHI_CONFIG (the configuration's Lua), TFPHI_WS, TFPHI_OUT.
local ws = os.getenv('TFPHI_WS')
local out = os.getenv('TFPHI_OUT')
local result = { errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd('qa!')
end

local function fail(message)
  result.errors[#result.errors + 1] = message
  finish()
end

local function initialized(id)
  local client = id and vim.lsp.get_client_by_id(id)
  return client ~= nil and client.initialized == true
end

local ok, err = pcall(function()
  dofile(os.getenv('TFPHI_CONFIG'))
  vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/modules/postgres/main.tf'))
  local buf = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[buf].filetype
  -- Neovim 0.7 lists a buffer's client once the server has answered `initialize`
  if not vim.wait(30000, function() return next(vim.lsp.buf_get_clients(buf)) ~= nil end, 20) then
    return fail('the configuration attached no initialized client to ' .. vim.api.nvim_buf_get_name(buf))
  end
  local other_id = vim.lsp.start_client({ name = 'other', cmd = { 'tfphi', 'serve' }, root_dir = ws,
    workspace_folders = { { uri = vim.uri_from_fname(ws), name = 'ws' } } })
  vim.lsp.buf_attach_client(buf, other_id)
  if not vim.wait(30000, function() return initialized(other_id) end, 20) then
    return fail('the second server did not initialize')
  end
  local names = {}
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do names[#names + 1] = client.name end
  table.sort(names)
  result.clients = names

  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local s = line:find('var.engine_version', 1, true)
    if s then vim.api.nvim_win_set_cursor(0, { i, s + 4 }) end
  end
  vim.api.nvim_feedkeys('K', 'x', false)
  local float
  local found = vim.wait(30000, function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= '' then float = win return true end
    end
    return false
  end, 20)
  if not found then
    return fail('K opened no hover window')
  end
  result.hover = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(float), 0, -1, false)
  for _, client in pairs(vim.lsp.get_active_clients()) do client.stop() end
end)
if not ok then
  result.errors[#result.errors + 1] = tostring(err)
end
finish()
