'use strict';
/**
 * What the extension tells `torchlint server`, computed from its `torchlint.*` settings.
 * Nothing here imports `vscode`, so the tests run under plain node.
 */

const path = require('node:path');

const SECTION = 'torchlint';
const FIX_ALL_KIND = 'source.fixAll.torchlint';

/** The settings the server reads (torchlint/server/settings.py), in the extension's spelling. */
const SERVER_KEYS = ['select', 'extendSelect', 'ignore', 'preview', 'unsafeFixes', 'configuration'];
/** Settings only the extension reads: how to start the server. Changing one restarts it. */
const START_KEYS = ['path', 'interpreter'];

/** Python files and the Python cells of notebooks, saved or not. */
const DOCUMENT_SELECTOR = ['file', 'untitled', 'vscode-notebook', 'vscode-notebook-cell'].map((scheme) => ({
  scheme,
  language: 'python',
}));

/**
 * `~`, `${workspaceFolder}` and `${userHome}` expanded; a relative path taken from `folder`.
 * @param {string} value
 * @param {{folder?: string, home: string}} where
 */
function expandPath(value, where) {
  let expanded = value
    .replace(/\$\{userHome\}/g, where.home)
    .replace(/\$\{workspaceFolder\}/g, where.folder ?? '');
  if (expanded === '~' || expanded.startsWith('~/')) {
    expanded = path.join(where.home, expanded.slice(1));
  }
  return path.isAbsolute(expanded) || !where.folder ? expanded : path.join(where.folder, expanded);
}

/**
 * The object sent as the `torchlint` section: only the keys the server reads, and only those
 * the user set, so that an unset key leaves the configuration file's value.
 * @param {(key: string) => unknown} get reads `torchlint.<key>` (VS Code's configuration `get`)
 * @param {{folder?: string, home: string}} where
 */
function serverSettings(get, where) {
  /** @type {Record<string, unknown>} */
  const settings = {};
  for (const key of ['select', 'extendSelect', 'ignore']) {
    const value = get(key);
    if (Array.isArray(value) && (key === 'select' || value.length > 0)) {
      settings[key] = value.map(String);
    }
  }
  const preview = get('preview');
  if (typeof preview === 'boolean') {
    settings.preview = preview;
  }
  settings.unsafeFixes = get('unsafeFixes') === true;
  const configuration = get('configuration');
  if (typeof configuration === 'string' && configuration.trim() !== '') {
    settings.configuration = expandPath(configuration.trim(), where);
  }
  return settings;
}

/**
 * How to start the server: `torchlint.path`, else `torchlint.interpreter`, else the Python
 * extension's interpreter, else `torchlint` from PATH. `origin` says which, for messages.
 * @param {(key: string) => unknown} get
 * @param {{folder?: string, home: string, python?: string}} where `python`: the Python
 *   extension's selected interpreter, if there is one
 * @returns {{command: string, args: string[], origin: string}}
 */
function serverCommand(get, where) {
  const chosen = (key) => {
    const value = get(key);
    return typeof value === 'string' && value.trim() !== '' ? expandPath(value.trim(), where) : undefined;
  };
  const executable = chosen('path');
  if (executable) {
    return { command: executable, args: ['server'], origin: 'torchlint.path' };
  }
  const module = ['-m', 'torchlint', 'server'];
  const interpreter = chosen('interpreter');
  if (interpreter) {
    return { command: interpreter, args: module, origin: 'torchlint.interpreter' };
  }
  if (where.python) {
    return { command: where.python, args: module, origin: "the Python extension's interpreter" };
  }
  return { command: 'torchlint', args: ['server'], origin: 'PATH' };
}

/**
 * What to tell the user when the server does not start.
 * @param {{command: string, args: string[], origin: string}} started
 * @param {string} reason
 */
function startFailure(started, reason) {
  return (
    `torchlint: could not start \`${[started.command, ...started.args].join(' ')}\` (from ${started.origin}): ${reason}. ` +
    "Install it with pip install 'torchlint[server] @ git+https://github.com/torchlint/torchlint@main' in that environment, or set torchlint.path or torchlint.interpreter."
  );
}

/**
 * The `textDocument/codeAction` request for the file's fix-all action.
 * @param {string} uri
 */
function fixAllRequest(uri) {
  const start = { line: 0, character: 0 };
  return {
    textDocument: { uri },
    range: { start, end: start },
    context: { diagnostics: [], only: [FIX_ALL_KIND] },
  };
}

/**
 * The fix-all action among a code-action answer (which may also hold plain commands), or undefined.
 * @param {unknown} answer
 */
function fixAllAction(answer) {
  return Array.isArray(answer) ? answer.find((item) => item && item.kind === FIX_ALL_KIND) : undefined;
}

module.exports = {
  DOCUMENT_SELECTOR,
  FIX_ALL_KIND,
  SECTION,
  SERVER_KEYS,
  START_KEYS,
  expandPath,
  fixAllAction,
  fixAllRequest,
  serverCommand,
  serverSettings,
  startFailure,
};
