-- End-to-end through Neovim 0.7 (headless): start `python -m tfphi serve`, open modules/cache/main.tf,
-- wait for unbounded-field, hover node_type's value, apply the validation quick fix, see the diagnostic go.
-- Inputs (environment): TFPHI_WS (workspace), TFPHI_OUT (result JSON), TFPHI_PYTHON (interpreter).
local ws = os.getenv('TFPHI_WS')
local out = os.getenv('TFPHI_OUT')
local python = os.getenv('TFPHI_PYTHON') or 'python3'
local result = { steps = {}, errors = {} }

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, out)
  vim.cmd('qa!')
end

local function step(name, value)
  result.steps[#result.steps + 1] = name
  if value ~= nil then
    result[name] = value
  end
end

local function fail(message)
  result.errors[#result.errors + 1] = message
  finish()
end

local raw = {} -- uri -> last published LSP diagnostics, as the server sent them
local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']

local function unbounded(uri)
  for _, d in ipairs(raw[uri] or {}) do
    if d.code == 'unbounded-field' then
      return d
    end
  end
  return nil
end

local ok, err = pcall(function()
  local initialized = false
  local client_id = vim.lsp.start_client({
    name = 'tfphi',
    cmd = { python, '-m', 'tfphi', 'serve' },
    root_dir = ws,
    workspace_folders = { { uri = vim.uri_from_fname(ws), name = 'ws' } },
    on_init = function() initialized = true end,
    handlers = {
      ['textDocument/publishDiagnostics'] = function(e, params, ctx, config)
        raw[params.uri] = params.diagnostics
        return default_publish(e, params, ctx, config)
      end,
    },
  })
  if not client_id then
    return fail('start_client failed')
  end
  if not vim.wait(20000, function() return initialized end, 20) then
    return fail('server did not initialize')
  end
  step('initialized')
  local client = vim.lsp.get_client_by_id(client_id)

  local cache_path = ws .. '/modules/cache/main.tf'
  vim.cmd('edit ' .. vim.fn.fnameescape(cache_path))
  local cache_buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(cache_buf, client_id)
  local cache_uri = vim.uri_from_bufnr(cache_buf)

  if not vim.wait(30000, function() return unbounded(cache_uri) ~= nil end, 20) then
    return fail('no unbounded-field diagnostic for ' .. cache_uri)
  end
  local diag = unbounded(cache_uri)
  step('diagnostic', diag.message)
  result.diagnostic_range = diag.range
  result.nvim_diagnostics = #vim.diagnostic.get(cache_buf)

  -- hover on node_type's value (the cursor marker is the text itself)
  local lines = vim.api.nvim_buf_get_lines(cache_buf, 0, -1, false)
  local line_nr, col
  for i, line in ipairs(lines) do
    local s = line:find('var.node_type', 1, true)
    if s then line_nr, col = i - 1, s + 3 end
  end
  local hover = client.request_sync('textDocument/hover', {
    textDocument = { uri = cache_uri },
    position = { line = line_nr, character = col },
  }, 10000, cache_buf)
  if not hover or hover.err or not hover.result then
    return fail('hover failed: ' .. vim.inspect(hover))
  end
  step('hover', hover.result.contents.value)

  -- open the file the fix edits, attached, so the edit reaches the server as an incremental change
  local vars_path = ws .. '/variables.tf'
  local vars_buf = vim.fn.bufadd(vars_path)
  vim.fn.bufload(vars_buf)
  vim.lsp.buf_attach_client(vars_buf, client_id)

  local actions = client.request_sync('textDocument/codeAction', {
    textDocument = { uri = cache_uri },
    range = diag.range,
    context = { diagnostics = { diag } },
  }, 10000, cache_buf)
  if not actions or actions.err or not actions.result then
    return fail('codeAction failed: ' .. vim.inspect(actions))
  end
  local titles, chosen = {}, nil
  for _, action in ipairs(actions.result) do
    titles[#titles + 1] = action.title
    if action.title:find('^Add validation block') then chosen = action end
  end
  step('actions', titles)
  if not chosen then
    return fail('no validation quick fix among ' .. vim.inspect(titles))
  end
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  step('applied', table.concat(vim.api.nvim_buf_get_lines(vars_buf, 0, -1, false), '\n'))

  if not vim.wait(30000, function() return unbounded(cache_uri) == nil end, 20) then
    return fail('the unbounded-field diagnostic did not go away')
  end
  step('gone')
  client.stop()
  vim.wait(5000, function() return client.is_stopped() end, 20)
  step('stopped')
end)
if not ok then
  result.errors[#result.errors + 1] = tostring(err)
end
finish()
