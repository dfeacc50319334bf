-- Wait for torchlint's diagnostics in the current buffer, print them and quit.
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 100)
vim.wait(1000)  -- a later publish replaces the first; let it settle
local found = vim.diagnostic.get(0)
table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
for _, d in ipairs(found) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  print(string.format('%d:%d %s', d.lnum + 1, d.col + 1, code))
end
local version = vim.fn.execute('version'):match('NVIM v[%w%.%-+]+')
print(string.format('%s: %d diagnostics', version, #found))
vim.cmd('qall!')
