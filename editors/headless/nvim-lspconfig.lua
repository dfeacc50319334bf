local lspconfig = require('lspconfig')
local configs = require('lspconfig.configs')
if not configs.torchlint then
  configs.torchlint = {
    default_config = {
      cmd = { 'torchlint', 'server' },
      filetypes = { 'python' },
      root_dir = lspconfig.util.root_pattern('pyproject.toml', '.git'),
      single_file_support = true,
      settings = { torchlint = {} },
    },
  }
end
lspconfig.torchlint.setup({ settings = { torchlint = { unsafeFixes = false } } })
