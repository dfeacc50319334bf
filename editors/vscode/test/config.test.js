'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const config = require('../src/config');

const where = { folder: '/work/project', home: '/home/ada' };
const reader = (values) => (key) => values[key];
const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));

test('unset settings send nothing but unsafeFixes, so the configuration file decides', () => {
  // VS Code's defaults as package.json declares them.
  const defaults = Object.fromEntries(
    Object.entries(manifest.contributes.configuration.properties).map(([key, spec]) => [key.slice('torchlint.'.length), spec.default]),
  );
  assert.deepEqual(config.serverSettings(reader(defaults), where), { unsafeFixes: false });
});

test('every server setting is passed on in the spelling the server reads', () => {
  const settings = config.serverSettings(
    reader({ select: ['TL1'], extendSelect: ['TL401'], ignore: ['TL102'], preview: false, unsafeFixes: true, configuration: 'ci/torchlint.toml', path: '/x' }),
    where,
  );
  assert.deepEqual(settings, {
    select: ['TL1'],
    extendSelect: ['TL401'],
    ignore: ['TL102'],
    preview: false,
    unsafeFixes: true,
    configuration: '/work/project/ci/torchlint.toml',
  });
  assert.deepEqual(Object.keys(settings).sort(), [...config.SERVER_KEYS].sort());
});

test('an empty select is a selection of nothing; empty additions are left out', () => {
  assert.deepEqual(config.serverSettings(reader({ select: [], extendSelect: [], ignore: [] }), where), { select: [], unsafeFixes: false });
});

test('paths expand ~, ${userHome} and ${workspaceFolder}, and start at the workspace folder', () => {
  assert.equal(config.expandPath('~/cfg.toml', where), '/home/ada/cfg.toml');
  assert.equal(config.expandPath('${userHome}/cfg.toml', where), '/home/ada/cfg.toml');
  assert.equal(config.expandPath('${workspaceFolder}/.venv/bin/python', where), '/work/project/.venv/bin/python');
  assert.equal(config.expandPath('.venv/bin/torchlint', where), '/work/project/.venv/bin/torchlint');
  assert.equal(config.expandPath('/opt/torchlint', where), '/opt/torchlint');
  assert.equal(config.expandPath('torchlint', { home: '/home/ada' }), 'torchlint');
});

test('the server command: path, then interpreter, then the Python extension, then PATH', () => {
  const python = { ...where, python: '/envs/ml/bin/python' };
  assert.deepEqual(config.serverCommand(reader({ path: '~/bin/torchlint', interpreter: '/usr/bin/python3' }), python), {
    command: '/home/ada/bin/torchlint',
    args: ['server'],
    origin: 'torchlint.path',
  });
  assert.deepEqual(config.serverCommand(reader({ path: ' ', interpreter: '.venv/bin/python' }), python), {
    command: '/work/project/.venv/bin/python',
    args: ['-m', 'torchlint', 'server'],
    origin: 'torchlint.interpreter',
  });
  assert.deepEqual(config.serverCommand(reader({ path: '', interpreter: '' }), python).command, '/envs/ml/bin/python');
  assert.deepEqual(config.serverCommand(reader({}), where), { command: 'torchlint', args: ['server'], origin: 'PATH' });
});

test('a failed start names the command, where it came from and what to do', () => {
  const message = config.startFailure({ command: '/envs/ml/bin/python', args: ['-m', 'torchlint', 'server'], origin: 'torchlint.interpreter' }, 'spawn ENOENT');
  assert.match(message, /could not start `\/envs\/ml\/bin\/python -m torchlint server` \(from torchlint.interpreter\): spawn ENOENT/);
  assert.match(message, /pip install 'torchlint\[server\] @ git\+https:\/\/github\.com\/torchlint\/torchlint@main'/);
});

test('fix all asks for the torchlint fix-all kind and picks it out of the answer', () => {
  const request = config.fixAllRequest('file:///work/project/train.py');
  assert.deepEqual(request.context.only, ['source.fixAll.torchlint']);
  assert.equal(request.textDocument.uri, 'file:///work/project/train.py');
  const action = { title: 'Fix all', kind: 'source.fixAll.torchlint', data: {} };
  assert.equal(config.fixAllAction([{ title: 'Show', command: 'x' }, action]), action);
  assert.equal(config.fixAllAction(null), undefined);
  assert.equal(config.fixAllAction([{ title: 'Fix', kind: 'quickfix' }]), undefined);
});

test('package.json declares exactly the settings the extension reads', () => {
  const declared = Object.keys(manifest.contributes.configuration.properties).sort();
  const read = [...config.SERVER_KEYS, ...config.START_KEYS, 'trace.server'].map((key) => `torchlint.${key}`).sort();
  assert.deepEqual(declared, read);
});

test('notebook cells and unsaved buffers are Python documents too', () => {
  assert.deepEqual(config.DOCUMENT_SELECTOR.map((selector) => selector.scheme), ['file', 'untitled', 'vscode-notebook', 'vscode-notebook-cell']);
  assert.ok(config.DOCUMENT_SELECTOR.every((selector) => selector.language === 'python'));
});
