vim.lsp.enable('torchlint')
