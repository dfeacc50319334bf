vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    local markers = vim.fs.find({ 'pyproject.toml', '.git' }, { upward = true, path = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf)) })
    vim.lsp.start({
      name = 'torchlint',
      cmd = { 'torchlint', 'server' },
      root_dir = markers[1] and vim.fs.dirname(markers[1]) or vim.fn.getcwd(),
      settings = { torchlint = { unsafeFixes = false } },
    })
  end,
})
