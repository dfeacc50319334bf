local torchlint
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'python',
  callback = function(args)
    torchlint = torchlint or vim.lsp.start_client({
      name = 'torchlint',
      cmd = { 'torchlint', 'server' },
      root_dir = vim.fn.getcwd(),
      settings = { torchlint = { unsafeFixes = false } },
    })
    vim.lsp.buf_attach_client(args.buf, torchlint)
  end,
})
