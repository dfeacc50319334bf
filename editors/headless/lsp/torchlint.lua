return {
  cmd = { 'torchlint', 'server' },
  filetypes = { 'python' },
  root_markers = { 'pyproject.toml', '.git' },
  settings = { torchlint = { unsafeFixes = false } },
}
