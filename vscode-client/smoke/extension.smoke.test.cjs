// Smoke test of the bundled extension without VS Code: out-test/smoke/extension.js
// (built here with esbuild, like the real bundle) is loaded against the fake
// `vscode` module in fake-vscode.cjs and talks to fake-server.cjs over stdio.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Module = require('node:module');
const { describe, it, before, after } = require('node:test');
const { buildSync } = require('esbuild');

const root = path.join(__dirname, '..');
const bundle = path.join(root, 'out-test', 'smoke', 'extension.js');
const fakeServer = path.join(__dirname, 'fake-server.cjs');
const vscode = require('./fake-vscode.cjs');
const { recorded, setSettings, changeSettings, registeredCommands, makeDocument, Selection, Position } = vscode.__fake;

// Make `require('vscode')` inside the bundle return the fake.
const originalLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  return request === 'vscode' ? vscode : originalLoad.call(this, request, parent, isMain);
};

buildSync({
  absWorkingDir: root,
  entryPoints: ['src/extension.ts'],
  outfile: bundle,
  bundle: true,
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  mainFields: ['module', 'main'],
  target: 'node18',
  logLevel: 'silent',
});
const extension = require(bundle);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tfphi-smoke-'));
const logFile = path.join(tmp, 'server-log.jsonl');
process.env.FAKE_TFPHI_LOG = logFile;

function serverLog() {
  if (!fs.existsSync(logFile)) {
    return [];
  }
  return fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

async function waitFor(what, predicate, timeoutMs = 10_000) {
  const start = Date.now();
  for (;;) {
    const value = predicate();
    if (value) {
      return value;
    }
    if (Date.now() - start > timeoutMs) {
      throw new Error(
        `timed out waiting for ${what}; output:\n${recorded.outputLines.join('\n')}\n` +
          `vscode API used but missing from the fake: ${[...vscode.__fake.missing].join(', ') || 'none'}\n` +
          `server log:\n${serverLog().map((m) => m.method).join(', ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function newContext() {
  return { subscriptions: [], extensionPath: path.join(tmp, 'ext'), extensionUri: vscode.Uri.file(path.join(tmp, 'ext')) };
}

async function shutdown(context) {
  await extension.deactivate();
  for (const d of context.subscriptions.splice(0)) {
    d.dispose();
  }
}

function editorAt(file, line, character) {
  const pos = new Position(line, character);
  return { document: makeDocument(vscode.Uri.file(file), 'resource "x" "y" {}\n', 'terraform'), selection: new Selection(pos, pos) };
}

after(() => {
  Module._load = originalLoad;
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('no server installed', () => {
  it('shows what to install, with a button for the output, and an error status', async () => {
    const emptyBin = path.join(tmp, 'empty-bin');
    fs.mkdirSync(emptyBin, { recursive: true });
    const savedPath = process.env.PATH;
    process.env.PATH = emptyBin;
    setSettings({ 'tfphi.interpreter': path.join(tmp, 'no-python') });
    const context = newContext();
    try {
      extension.activate(context);
      const message = await waitFor('the error message', () => recorded.messages.find((m) => m.level === 'error'));
      assert.match(message.message, /pip install tfphi/);
      assert.match(message.message, /tfphi\.server\.command/);
      assert.deepEqual(message.items, ['Show Output', 'Open Settings']);
      assert.match(recorded.statusBar.text, /\$\(error\)/);
      assert.ok(registeredCommands.has('tfphi.restartServer'));
      assert.ok(registeredCommands.has('tfphi.showOutput'));
      // The client registers the server's commands itself; without a server there are none.
      assert.ok(!registeredCommands.has('tfphi.showTrace'));
    } finally {
      process.env.PATH = savedPath;
      await shutdown(context);
      recorded.messages.length = 0;
    }
  });
});

describe('with a server', () => {
  const context = newContext();
  const fields = { 'aws_db_instance.engine_version': { universe: ['14.9', '15.4'], severity: 'error' } };

  before(async () => {
    setSettings({
      'tfphi.server.command': [process.execPath, fakeServer],
      'tfphi.interpreter': [],
      'tfphi.limits.depth': 7,
      'tfphi.limits.branches': 16,
      'tfphi.fields': fields,
      'tfphi.diagnostics.severity': null,
      'tfphi.inlayHints.enabled': false,
      'tfphi.ignore': ['examples/legacy'],
      'tfphi.trace.server': 'off',
    });
    extension.activate(context);
    await waitFor('the server to run', () => recorded.statusBar.text.includes('$(check)'));
    // The status bar turns as the server answers `initialize`; the client registers the
    // server's commands and sends the settings just after: the tests below read both (a CI
    // run once found them missing right after the status bar turned).
    await waitFor('the client to finish starting', () =>
      registeredCommands.has('tfphi.showTrace') &&
      serverLog().some((m) => m.method === 'workspace/didChangeConfiguration'),
    );
  });

  after(async () => {
    await shutdown(context);
  });

  it('sends the initializationOptions in the server shape', () => {
    const init = serverLog().find((m) => m.method === 'initialize');
    assert.ok(init);
    // The command line is the setting's, with nothing appended (no --stdio).
    assert.deepEqual(init.argv, []);
    assert.deepEqual(init.params.initializationOptions, {
      limits: { depth: 7, branches: 16 },
      fields,
      diagnostics: { severity: null },
      inlayHints: { enabled: false },
      ignore: ['examples/legacy'],
    });
  });

  it('the language client registered the server-advertised commands', () => {
    assert.ok(registeredCommands.has('tfphi.showTrace'));
    assert.ok(registeredCommands.has('tfphi.previewSpecialization'));
  });

  it('Show Trace from the palette fills the cursor and opens a markdown preview', async () => {
    vscode.window.activeTextEditor = editorAt('/w/main.tf', 3, 5);
    recorded.executed.length = 0;
    await vscode.commands.executeCommand('tfphi.showTrace');
    const call = serverLog().filter((m) => m.method === 'workspace/executeCommand').at(-1);
    assert.deepEqual(call.params, {
      command: 'tfphi.showTrace',
      arguments: [{ uri: 'file:///w/main.tf', position: { line: 3, character: 5 } }],
    });
    const preview = recorded.executed.find((e) => e.id === 'markdown.showPreview');
    assert.ok(preview, JSON.stringify(recorded.executed));
    const uri = preview.args[0];
    assert.equal(uri.scheme, 'tfphi-preview');
    assert.equal(uri.path, '/aws_db_instance.app.engine_version.md');
    const text = recorded.contentProviders.get('tfphi-preview').provideTextDocumentContent(uri);
    assert.match(text, /\| value \| condition \|/);
  });

  it('Preview Specialization from a code lens passes the arguments through and opens terraform', async () => {
    const args = { uri: 'file:///w/main.tf', address: 'aws_db_instance.app.engine_version' };
    recorded.shown.length = 0;
    await vscode.commands.executeCommand('tfphi.previewSpecialization', args);
    const call = serverLog().filter((m) => m.method === 'workspace/executeCommand').at(-1);
    assert.deepEqual(call.params, { command: 'tfphi.previewSpecialization', arguments: [args] });
    const shown = recorded.shown.find((s) => typeof s === 'object');
    assert.ok(shown);
    assert.equal(shown.uri, 'tfphi-preview:/engine_version.tf');
    assert.equal(shown.languageId, 'terraform');
    assert.match(shown.text, /^module "db_v15_4" \{/);
    assert.match(shown.text, /# --- tfphi provenance \(JSON\) ---/);
    assert.match(shown.text, /"branch_value": "15.4"/);
  });

  it('a null answer gives an information message', async () => {
    vscode.window.activeTextEditor = editorAt('/w/main.tf', 99, 0);
    recorded.messages.length = 0;
    await vscode.commands.executeCommand('tfphi.showTrace');
    assert.deepEqual(
      recorded.messages.map((m) => m.message),
      ['tfphi: no trace is available at the cursor.'],
    );
  });

  it('without an editor the palette command explains what to do', async () => {
    vscode.window.activeTextEditor = undefined;
    recorded.messages.length = 0;
    await vscode.commands.executeCommand('tfphi.previewSpecialization');
    assert.match(recorded.messages[0].message, /open a Terraform file/);
  });

  it('setting changes reach the server without the client-only keys', async () => {
    changeSettings({ 'tfphi.limits.depth': 9 });
    const changes = () => serverLog().filter((m) => m.method === 'workspace/didChangeConfiguration');
    // The client sends the settings once at start-up, then on every change.
    const change = await waitFor('didChangeConfiguration', () =>
      changes().find((m) => m.params.settings.tfphi.limits.depth === 9),
    );
    assert.equal(changes()[0].params.settings.tfphi.limits.depth, 7);
    assert.deepEqual(Object.keys(change.params.settings), ['tfphi']);
    const sent = change.params.settings.tfphi;
    assert.deepEqual(sent.limits, { depth: 9, branches: 16 });
    assert.deepEqual(sent.fields, fields);
    assert.deepEqual(sent.ignore, ['examples/legacy']);
    assert.deepEqual(sent.inlayHints, { enabled: false });
    assert.deepEqual(Object.keys(sent).sort(), ['diagnostics', 'fields', 'ignore', 'inlayHints', 'limits']);
  });

  it('Restart Server starts a new server process', async () => {
    const before = serverLog().filter((m) => m.method === 'initialize').length;
    await vscode.commands.executeCommand('tfphi.restartServer');
    await waitFor('the restarted server', () => recorded.statusBar.text.includes('$(check)'));
    assert.equal(serverLog().filter((m) => m.method === 'initialize').length, before + 1);
    assert.ok(serverLog().some((m) => m.method === 'shutdown'));
  });

  it('a crashed server is restarted after a back-off', async () => {
    process.env.FAKE_TFPHI_CRASH_ON_COMMAND = '1';
    try {
      await vscode.commands.executeCommand('tfphi.restartServer');
      await waitFor('the server', () => recorded.statusBar.text.includes('$(check)'));
    } finally {
      delete process.env.FAKE_TFPHI_CRASH_ON_COMMAND;
    }
    const before = serverLog().filter((m) => m.method === 'initialize').length;
    vscode.window.activeTextEditor = editorAt('/w/main.tf', 1, 1);
    recorded.messages.length = 0;
    await vscode.commands.executeCommand('tfphi.showTrace');
    assert.deepEqual(
      recorded.messages.map((m) => m.message),
      ['tfphi: no trace is available at the cursor.'],
    );
    await waitFor('the server to be restarted', () =>
      serverLog().filter((m) => m.method === 'initialize').length === before + 1 && recorded.statusBar.text.includes('$(check)'),
    );
    assert.ok(recorded.outputLines.some((l) => /restarting it in 1s/.test(l)));
  });
});
