'use strict';
/**
 * The extension's requests against the real `torchlint server`, over the same JSON-RPC library
 * the VS Code client uses. Needs a Python with `torchlint[server]`: TORCHLINT_PYTHON names it
 * (.ci/run sets it); without it the test is skipped.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-jsonrpc/node');
const config = require('../src/config');

const python = process.env.TORCHLINT_PYTHON;

const TRAIN = `import torch


def train(model, loader, optimizer):
    total = 0.0
    for x in loader:
        loss = model(x.cuda())
        scaler = torch.cuda.amp.GradScaler()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total
`;

/** Start the server as the extension would with these settings; collect what it says. */
function startServer(settingValues, folder) {
  const started = config.serverCommand(() => undefined, { folder, home: os.homedir(), python });
  const child = spawn(started.command, started.args, { cwd: folder, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  const settings = config.serverSettings((key) => settingValues[key], { folder, home: os.homedir() });
  const seen = { messages: [], diagnostics: new Map(), waiters: [] };
  connection.onRequest('workspace/configuration', (params) => params.items.map(() => settings));
  connection.onNotification('window/showMessage', (params) => seen.messages.push(params));
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    seen.diagnostics.set(params.uri, params.diagnostics);
    seen.waiters.splice(0).forEach((wake) => wake());
  });
  connection.listen();
  return { child, connection, settings, seen };
}

async function diagnosticsFor(seen, uri) {
  const deadline = Date.now() + 30000;
  while (!seen.diagnostics.has(uri)) {
    assert.ok(Date.now() < deadline, `no diagnostics for ${uri}`);
    await new Promise((wake) => {
      seen.waiters.push(wake);
      setTimeout(wake, 500);
    });
  }
  return seen.diagnostics.get(uri);
}

test('the server reads every setting the extension sends, and fix all answers its request', { skip: !python && 'set TORCHLINT_PYTHON to a Python with torchlint[server]' }, async () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'torchlint-vscode-'));
  fs.writeFileSync(path.join(folder, 'team.toml'), 'ignore = ["TL401"]\n');
  fs.writeFileSync(path.join(folder, 'train.py'), TRAIN);
  const uri = pathToFileURL(path.join(folder, 'train.py')).href;
  const values = { select: ['TL602'], extendSelect: ['TL101'], ignore: [], preview: true, unsafeFixes: false, configuration: 'team.toml' };
  const { child, connection, settings, seen } = startServer(values, folder);
  try {
    await connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(folder).href,
      capabilities: { workspace: { configuration: true } },
      initializationOptions: { settings },
    });
    connection.sendNotification('initialized', {});
    connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: TRAIN } });
    const codes = (await diagnosticsFor(seen, uri)).map((diagnostic) => diagnostic.code).sort();
    assert.deepEqual(codes, ['TL101', 'TL602']);

    const answer = await connection.sendRequest('textDocument/codeAction', config.fixAllRequest(uri));
    let action = config.fixAllAction(answer);
    assert.ok(action, 'the server offered no fix-all action');
    if (!action.edit) {
      action = await connection.sendRequest('codeAction/resolve', action);
    }
    const edits = action.edit.changes ? action.edit.changes[uri] : action.edit.documentChanges[0].edits;
    assert.ok(edits.some((edit) => edit.newText.includes('torch.amp.GradScaler("cuda")')));

    await connection.sendRequest('shutdown');
    const exited = new Promise((done) => child.once('exit', done));
    await connection.sendNotification('exit');
    assert.equal(await exited, 0);
    // Errors or warnings would mean a setting the server refused or does not know.
    assert.deepEqual(seen.messages.filter((message) => message.type <= 2), []);
  } finally {
    connection.dispose();
    child.kill();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
