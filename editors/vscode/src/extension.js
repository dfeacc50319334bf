'use strict';
/** The VS Code side: start `torchlint server`, keep it told of the settings, two commands. */

const os = require('node:os');
const vscode = require('vscode');
const { LanguageClient, DidChangeConfigurationNotification } = require('vscode-languageclient/node');
const config = require('./config');

/** @type {LanguageClient | undefined} */
let client;

function firstFolder() {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** The `torchlint` section as the server reads it. */
function currentSettings() {
  const section = vscode.workspace.getConfiguration(config.SECTION);
  return config.serverSettings((key) => section.get(key), { folder: firstFolder(), home: os.homedir() });
}

/** The interpreter selected in the Python extension, if it is installed and has one. */
async function selectedPython() {
  const python = vscode.extensions.getExtension('ms-python.python');
  if (!python) {
    return undefined;
  }
  try {
    const api = python.isActive ? python.exports : await python.activate();
    return api?.environments?.getActiveEnvironmentPath?.(vscode.workspace.workspaceFolders?.[0]?.uri)?.path;
  } catch {
    return undefined;
  }
}

async function start() {
  const section = vscode.workspace.getConfiguration(config.SECTION);
  const where = { folder: firstFolder(), home: os.homedir(), python: await selectedPython() };
  const started = config.serverCommand((key) => section.get(key), where);
  client = new LanguageClient(
    'torchlint',
    'torchlint',
    { command: started.command, args: started.args, options: { cwd: where.folder } },
    {
      documentSelector: config.DOCUMENT_SELECTOR,
      initializationOptions: { settings: currentSettings() },
      middleware: {
        workspace: {
          // The server asks for the `torchlint` section; answer with what it reads only.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            return params.items.map((item, i) => (item.section === config.SECTION ? currentSettings() : answers[i]));
          },
        },
      },
    },
  );
  try {
    await client.start();
  } catch (error) {
    vscode.window.showErrorMessage(config.startFailure(started, error instanceof Error ? error.message : String(error)));
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running?.needsStop()) {
    await running.stop();
  }
}

async function restart() {
  await stop();
  await start();
}

/** Apply every fix `torchlint check --fix` would make to the active file (unsafe ones too with `unsafeFixes`). */
async function fixAll() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client?.isRunning()) {
    return;
  }
  const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
  let action = config.fixAllAction(await client.sendRequest('textDocument/codeAction', config.fixAllRequest(uri)));
  if (!action) {
    vscode.window.showInformationMessage('torchlint: nothing to fix in this file');
    return;
  }
  if (!action.edit) {
    action = await client.sendRequest('codeAction/resolve', action);
  }
  if (action.edit) {
    await vscode.workspace.applyEdit(await client.protocol2CodeConverter.asWorkspaceEdit(action.edit));
  }
}

/** @param {vscode.ConfigurationChangeEvent} event */
async function settingsChanged(event) {
  if (config.START_KEYS.some((key) => event.affectsConfiguration(`${config.SECTION}.${key}`))) {
    await restart();
  } else if (event.affectsConfiguration(config.SECTION) && client?.isRunning()) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [config.SECTION]: currentSettings() } });
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('torchlint.restart', restart),
    vscode.commands.registerCommand('torchlint.fixAll', fixAll),
    vscode.workspace.onDidChangeConfiguration(settingsChanged),
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
