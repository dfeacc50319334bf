'use strict';
/**
 * src/extension.js with stand-ins for the `vscode` API and the language client: what it starts,
 * what it sends when settings change, and what its two commands do.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const Module = require('node:module');
const manifest = require('../package.json');

/** A VS Code whose settings, commands, messages and applied edits the test can see. */
function fakeVscode(settings) {
  const registered = new Map();
  const listeners = [];
  const shown = [];
  const applied = [];
  const vscode = {
    workspace: {
      workspaceFolders: [{ uri: { fsPath: '/work/project' } }],
      getConfiguration: () => ({ get: (key) => settings[key] }),
      onDidChangeConfiguration: (listener) => listeners.push(listener),
      applyEdit: async (edit) => applied.push(edit),
    },
    window: {
      activeTextEditor: { document: { uri: 'file:///work/project/train.py' } },
      showErrorMessage: (message) => shown.push(['error', message]),
      showInformationMessage: (message) => shown.push(['info', message]),
    },
    commands: { registerCommand: (name, run) => registered.set(name, run) },
    extensions: { getExtension: () => undefined },
  };
  const change = (...keys) => Promise.all(listeners.map((listener) => listener({ affectsConfiguration: (key) => keys.some((k) => k.startsWith(key)) })));
  return { vscode, registered, change, shown, applied };
}

/** A language client that records how it was made and what was sent, and answers requests from `answers`. */
function fakeClientModule(answers, failStart) {
  const clients = [];
  class LanguageClient {
    constructor(id, name, server, options) {
      Object.assign(this, { id, server, options, sent: [], running: false, stopped: false });
      this.code2ProtocolConverter = { asUri: (uri) => uri };
      this.protocol2CodeConverter = { asWorkspaceEdit: async (edit) => ({ converted: edit }) };
      clients.push(this);
    }
    async start() {
      if (failStart) throw new Error('spawn torchlint ENOENT');
      this.running = true;
    }
    async stop() {
      this.running = false;
      this.stopped = true;
    }
    needsStop() {
      return this.running;
    }
    isRunning() {
      return this.running;
    }
    async sendRequest(method, params) {
      this.sent.push([method, params]);
      return answers[method];
    }
    async sendNotification(type, params) {
      this.sent.push([type.method, params]);
    }
  }
  const DidChangeConfigurationNotification = { type: { method: 'workspace/didChangeConfiguration' } };
  return { module: { LanguageClient, DidChangeConfigurationNotification }, clients };
}

/** src/extension.js loaded afresh against the stand-ins, and activated. */
async function activated(settings, answers = {}, failStart = false) {
  const fake = fakeVscode(settings);
  const client = fakeClientModule(answers, failStart);
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return fake.vscode;
    if (request === 'vscode-languageclient/node') return client.module;
    return load.call(this, request, ...rest);
  };
  try {
    delete require.cache[require.resolve('../src/extension')];
    const extension = require('../src/extension');
    await extension.activate({ subscriptions: [] });
    return { ...fake, clients: client.clients, extension };
  } finally {
    Module._load = load;
  }
}

test('activation starts the server the settings name, with the server settings as initialization options', async () => {
  const { clients, registered } = await activated({ interpreter: '.venv/bin/python', extendSelect: ['TL401'], path: '' });
  assert.equal(clients.length, 1);
  assert.deepEqual(clients[0].server, { command: '/work/project/.venv/bin/python', args: ['-m', 'torchlint', 'server'], options: { cwd: '/work/project' } });
  assert.deepEqual(clients[0].options.initializationOptions, { settings: { extendSelect: ['TL401'], unsafeFixes: false } });
  assert.deepEqual([...registered.keys()].sort(), manifest.contributes.commands.map((command) => command.command).sort());
});

test("the server's workspace/configuration request gets the server settings, other sections what VS Code says", async () => {
  const { clients } = await activated({ preview: true });
  const ask = clients[0].options.middleware.workspace.configuration;
  const params = { items: [{ section: 'torchlint' }, { section: 'python' }] };
  const answer = await ask(params, undefined, async () => [{ path: '/x', preview: true }, { analysis: {} }]);
  assert.deepEqual(answer, [{ preview: true, unsafeFixes: false }, { analysis: {} }]);
});

test('a changed server setting is sent; a changed interpreter restarts the server', async () => {
  const settings = { ignore: ['TL101'] };
  const { clients, change } = await activated(settings);
  settings.ignore = ['TL102'];
  await change('torchlint.ignore');
  assert.deepEqual(clients[0].sent, [['workspace/didChangeConfiguration', { settings: { torchlint: { ignore: ['TL102'], unsafeFixes: false } } }]]);
  settings.interpreter = '/usr/bin/python3';
  await change('torchlint.interpreter');
  assert.ok(clients[0].stopped);
  assert.equal(clients.length, 2);
  assert.equal(clients[1].server.command, '/usr/bin/python3');
});

test('restart stops the running server and starts a new one', async () => {
  const { clients, registered } = await activated({});
  await registered.get('torchlint.restart')();
  assert.ok(clients[0].stopped && clients[1].isRunning());
});

test('fix all asks for the fix-all action, resolves its edit and applies it', async () => {
  const action = { title: 'Fix all', kind: 'source.fixAll.torchlint', data: { unit: 'u' } };
  const edit = { changes: { 'file:///work/project/train.py': [] } };
  const { clients, registered, applied } = await activated({}, { 'textDocument/codeAction': [action], 'codeAction/resolve': { ...action, edit } });
  await registered.get('torchlint.fixAll')();
  assert.deepEqual(clients[0].sent.map(([method]) => method), ['textDocument/codeAction', 'codeAction/resolve']);
  assert.deepEqual(clients[0].sent[0][1].context.only, ['source.fixAll.torchlint']);
  assert.deepEqual(applied, [{ converted: edit }]);
});

test('fix all with nothing to fix says so and changes nothing', async () => {
  const { registered, applied, shown } = await activated({}, { 'textDocument/codeAction': [] });
  await registered.get('torchlint.fixAll')();
  assert.deepEqual(applied, []);
  assert.deepEqual(shown, [['info', 'torchlint: nothing to fix in this file']]);
});

test('a server that does not start is reported with the command that was tried', async () => {
  const { shown } = await activated({}, {}, true);
  assert.equal(shown.length, 1);
  assert.match(shown[0][1], /^torchlint: could not start `torchlint server` \(from PATH\): spawn torchlint ENOENT\./);
});
