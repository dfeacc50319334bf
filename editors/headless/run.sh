#!/usr/bin/env bash
# Try the editor configurations of docs/editors.md headless on a copy of examples/train.py:
# for each, the line and code of every diagnostic the editor shows, then the editor's version
# and their count; first, the number of findings `torchlint check` reports for the same file.
#
#   editors/headless/run.sh [NVIM] [LSPCONFIG]
#
# needs `torchlint` with its server extra on PATH. NVIM is the Neovim to run (default: nvim);
# LSPCONFIG a checkout of nvim-lspconfig, for its snippet; GNU Emacs with eglot is tried
# where `emacs` is installed. A configuration the editor's version lacks the API for fails
# with the editor's own error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nvim=${1:-nvim}
lspconfig=${2:-}
project=$(mktemp -d)
cp "$here/../../examples/train.py" "$project/"
cd "$project" || exit 2
count=$(torchlint check --no-cache --output-format json train.py 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
echo "== torchlint check: $count findings"
configs=(nvim-0.7 nvim-0.8 nvim-0.11 nvim-lsp-file)
[ -n "$lspconfig" ] && configs+=(nvim-lspconfig)
for config in "${configs[@]}"; do
  echo "== $config.lua"
  case $config in
    nvim-lsp-file) runtime=$here ;;  # where lsp/torchlint.lua lies
    nvim-lspconfig) runtime=$lspconfig ;;
    *) runtime=. ;;
  esac
  timeout 60 "$nvim" --headless --cmd "set rtp^=$runtime" -u "$here/$config.lua" train.py \
    -c "luafile $here/print-diagnostics.lua" 2>&1 | tr -d '\r'
  echo
done
if command -v emacs > /dev/null; then
  echo "== eglot.el"
  timeout 60 emacs --batch -l "$here/eglot.el" -l "$here/eglot-print-diagnostics.el" 2>&1 | grep -v '^Loading '
fi
rm -rf "$project"
