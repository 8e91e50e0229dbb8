// A small in-memory stand-in for the `vscode` module, enough for the bundled
// extension and vscode-languageclient to activate, start a server over stdio,
// and run commands. It records what the extension asks of the editor.
'use strict';

const noop = () => undefined;

class Disposable {
  constructor(fn) {
    this._fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
  dispose() {
    if (this._fn) {
      this._fn();
      this._fn = undefined;
    }
  }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (listener, thisArg) => {
      const bound = thisArg ? listener.bind(thisArg) : listener;
      this.listeners.add(bound);
      return new Disposable(() => this.listeners.delete(bound));
    };
  }
  fire(value) {
    for (const l of [...this.listeners]) {
      l(value);
    }
  }
  dispose() {
    this.listeners.clear();
  }
}

const anEvent = () => new Disposable(noop);

class Uri {
  constructor(scheme, authority, path, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || '';
    this.path = path || '';
    this.query = query || '';
    this.fragment = fragment || '';
  }
  static parse(value) {
    const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
    if (!m) {
      throw new Error(`fake vscode: cannot parse URI ${value}`);
    }
    return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
  }
  static file(path) {
    return new Uri('file', '', path);
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  get fsPath() {
    return this.path;
  }
  with(change) {
    return new Uri(
      change.scheme ?? this.scheme,
      change.authority ?? this.authority,
      change.path ?? this.path,
      change.query ?? this.query,
      change.fragment ?? this.fragment,
    );
  }
  toString() {
    const auth = this.scheme === 'file' || this.authority ? `//${this.authority}` : '';
    const q = this.query ? `?${this.query}` : '';
    const f = this.fragment ? `#${this.fragment}` : '';
    return `${this.scheme}:${auth}${encodeURI(this.path)}${q}${f}`;
  }
  toJSON() {
    return this.toString();
  }
}

class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
class Range {
  constructor(a, b, c, d) {
    if (a instanceof Position) {
      this.start = a;
      this.end = b;
    } else {
      this.start = new Position(a, b);
      this.end = new Position(c, d);
    }
  }
}
class Selection extends Range {
  constructor(anchor, active) {
    super(anchor, active);
    this.anchor = anchor;
    this.active = active;
  }
}
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
class CancellationError extends Error {}
class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
    this._emitter = emitter;
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this._emitter.fire();
  }
  dispose() {}
}
// Classes that vscode-languageclient extends when it loads.
class CallHierarchyItem {}
class CodeLens {}
class CompletionItem {}
class DocumentLink {}
class InlayHint {}
class SymbolInformation {}
class TypeHierarchyItem {}
class CodeAction {}
class Diagnostic {}
class CodeActionKind {
  constructor(value) {
    this.value = value;
  }
  append(part) {
    return new CodeActionKind(this.value ? `${this.value}.${part}` : part);
  }
  contains(other) {
    return this.value === other.value || other.value.startsWith(`${this.value}.`);
  }
  intersects(other) {
    return this.contains(other) || other.contains(this);
  }
}
for (const [name, value] of Object.entries({
  Empty: '',
  QuickFix: 'quickfix',
  Refactor: 'refactor',
  RefactorExtract: 'refactor.extract',
  RefactorInline: 'refactor.inline',
  RefactorRewrite: 'refactor.rewrite',
  Source: 'source',
  SourceOrganizeImports: 'source.organizeImports',
  SourceFixAll: 'source.fixAll',
})) {
  CodeActionKind[name] = new CodeActionKind(value);
}
class TabInputText {}
class TabInputTextDiff {}
class TabInputCustom {}
class TabInputNotebook {}
class TabInputNotebookDiff {}

/** What the extension did, for the test to check. */
const recorded = {
  messages: [],
  executed: [],
  shown: [],
  outputLines: [],
  statusBar: undefined,
  contentProviders: new Map(),
  languageChanges: [],
};

/** settings: flat map of "tfphi.x.y" -> value. */
const settings = new Map();
const configListeners = new EventEmitter();
const registeredCommands = new Map();

function getConfiguration(section) {
  const prefix = section ? `${section}.` : '';
  const get = (key, fallback) => {
    const full = prefix + key;
    if (settings.has(full)) {
      return settings.get(full);
    }
    // Nested read, e.g. get('tfphi') or get('limits').
    const nested = {};
    let found = false;
    for (const [k, v] of settings) {
      if (k.startsWith(`${full}.`)) {
        found = true;
        const parts = k.slice(full.length + 1).split('.');
        let node = nested;
        for (const p of parts.slice(0, -1)) {
          node = node[p] = node[p] ?? {};
        }
        node[parts[parts.length - 1]] = v;
      }
    }
    return found ? nested : fallback;
  };
  return {
    get,
    has: (key) => get(key) !== undefined,
    inspect: () => undefined,
    update: () => Promise.resolve(),
  };
}

function setSettings(values) {
  settings.clear();
  for (const [k, v] of Object.entries(values)) {
    settings.set(k, v);
  }
}

function changeSettings(values) {
  for (const [k, v] of Object.entries(values)) {
    settings.set(k, v);
  }
  const keys = Object.keys(values);
  configListeners.fire({
    affectsConfiguration: (section) => keys.some((k) => k === section || k.startsWith(`${section}.`) || section.startsWith(`${k}.`)),
  });
}

const documents = new Map();

function makeDocument(uri, text, languageId) {
  return {
    uri,
    fileName: uri.path,
    languageId,
    version: 1,
    isClosed: false,
    isDirty: false,
    isUntitled: false,
    getText: () => text,
    lineCount: text.split('\n').length,
  };
}

const window = {
  activeTextEditor: undefined,
  visibleTextEditors: [],
  tabGroups: { all: [], onDidChangeTabs: anEvent, onDidChangeTabGroups: anEvent },
  onDidChangeActiveTextEditor: anEvent,
  onDidChangeVisibleTextEditors: anEvent,
  createOutputChannel(name) {
    return {
      name,
      append: (s) => recorded.outputLines.push(s),
      appendLine: (s) => recorded.outputLines.push(s),
      replace: noop,
      clear: noop,
      show: () => recorded.shown.push(`output:${name}`),
      hide: noop,
      dispose: noop,
    };
  },
  createStatusBarItem(id) {
    const item = { id, text: '', tooltip: '', show: noop, hide: noop, dispose: noop };
    recorded.statusBar = item;
    return item;
  },
  showInformationMessage: (m, ...items) => {
    recorded.messages.push({ level: 'info', message: m, items });
    return Promise.resolve(undefined);
  },
  showWarningMessage: (m, ...items) => {
    recorded.messages.push({ level: 'warning', message: m, items });
    return Promise.resolve(undefined);
  },
  showErrorMessage: (m, ...items) => {
    recorded.messages.push({ level: 'error', message: m, items });
    return Promise.resolve(undefined);
  },
  showTextDocument: (doc, options) => {
    recorded.shown.push({ uri: doc.uri.toString(), languageId: doc.languageId, text: doc.getText(), options });
    return Promise.resolve({ document: doc });
  },
  withProgress: (_options, task) => task({ report: noop }, new CancellationTokenSource().token),
};

const workspace = {
  workspaceFolders: undefined,
  textDocuments: [],
  getConfiguration,
  onDidChangeConfiguration: configListeners.event,
  onDidOpenTextDocument: anEvent,
  onDidCloseTextDocument: anEvent,
  onDidChangeTextDocument: anEvent,
  onDidSaveTextDocument: anEvent,
  onWillSaveTextDocument: anEvent,
  onDidChangeWorkspaceFolders: anEvent,
  onDidCreateFiles: anEvent,
  onDidRenameFiles: anEvent,
  onDidDeleteFiles: anEvent,
  onWillCreateFiles: anEvent,
  onWillRenameFiles: anEvent,
  onWillDeleteFiles: anEvent,
  onDidOpenNotebookDocument: anEvent,
  onDidCloseNotebookDocument: anEvent,
  onDidChangeNotebookDocument: anEvent,
  onDidSaveNotebookDocument: anEvent,
  notebookDocuments: [],
  createFileSystemWatcher: () => ({
    onDidCreate: anEvent,
    onDidChange: anEvent,
    onDidDelete: anEvent,
    dispose: noop,
  }),
  registerTextDocumentContentProvider(scheme, provider) {
    recorded.contentProviders.set(scheme, provider);
    return new Disposable(() => recorded.contentProviders.delete(scheme));
  },
  async openTextDocument(uri) {
    const provider = recorded.contentProviders.get(uri.scheme);
    const text = provider ? await provider.provideTextDocumentContent(uri) : '';
    const languageId = uri.path.endsWith('.tf') ? 'terraform' : uri.path.endsWith('.md') ? 'markdown' : 'plaintext';
    const doc = makeDocument(uri, text, languageId);
    documents.set(uri.toString(), doc);
    return doc;
  },
  applyEdit: () => Promise.resolve(true),
};

const languages = {
  match: () => 0,
  createDiagnosticCollection: (name) => {
    const map = new Map();
    return {
      name,
      set: (uri, d) => map.set(String(uri), d),
      delete: (uri) => map.delete(String(uri)),
      clear: () => map.clear(),
      forEach: (cb) => map.forEach((v, k) => cb(k, v)),
      get: (uri) => map.get(String(uri)),
      has: (uri) => map.has(String(uri)),
      dispose: () => map.clear(),
    };
  },
  setTextDocumentLanguage: (doc, languageId) => {
    recorded.languageChanges.push(languageId);
    return Promise.resolve({ ...doc, languageId });
  },
};
for (const name of [
  'registerHoverProvider', 'registerCompletionItemProvider', 'registerDefinitionProvider',
  'registerReferenceProvider', 'registerDocumentSymbolProvider', 'registerCodeActionsProvider',
  'registerCodeLensProvider', 'registerInlayHintsProvider', 'registerSignatureHelpProvider',
  'registerDocumentHighlightProvider', 'registerWorkspaceSymbolProvider', 'registerRenameProvider',
  'registerDocumentFormattingEditProvider', 'registerDocumentRangeFormattingEditProvider',
  'registerOnTypeFormattingEditProvider', 'registerDocumentLinkProvider', 'registerColorProvider',
  'registerFoldingRangeProvider', 'registerDeclarationProvider', 'registerSelectionRangeProvider',
  'registerCallHierarchyProvider', 'registerTypeHierarchyProvider', 'registerImplementationProvider',
  'registerTypeDefinitionProvider', 'registerLinkedEditingRangeProvider', 'registerInlineValuesProvider',
  'registerInlineCompletionItemProvider', 'registerDocumentSemanticTokensProvider',
  'registerDocumentRangeSemanticTokensProvider',
]) {
  languages[name] = () => new Disposable(noop);
}

const commands = {
  registerCommand(id, handler) {
    if (registeredCommands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    registeredCommands.set(id, handler);
    return new Disposable(() => registeredCommands.delete(id));
  },
  async executeCommand(id, ...args) {
    recorded.executed.push({ id, args });
    const handler = registeredCommands.get(id);
    return handler ? handler(...args) : undefined;
  },
  getCommands: () => Promise.resolve([...registeredCommands.keys()]),
};

const missing = new Set();
const api = {
  version: '1.82.0',
  Uri,
  EventEmitter,
  Disposable,
  Position,
  Range,
  Selection,
  ThemeColor,
  CancellationError,
  CancellationTokenSource,
  CallHierarchyItem,
  CodeLens,
  CompletionItem,
  DocumentLink,
  InlayHint,
  SymbolInformation,
  TypeHierarchyItem,
  CodeAction,
  CodeActionKind,
  Diagnostic,
  TabInputText,
  TabInputTextDiff,
  TabInputCustom,
  TabInputNotebook,
  TabInputNotebookDiff,
  StatusBarAlignment: { Left: 1, Right: 2 },
  ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  env: { language: 'en', appName: 'Fake Code', machineId: 'fake', openExternal: () => Promise.resolve(true) },
  extensions: { getExtension: () => undefined, all: [] },
  window,
  workspace,
  languages,
  commands,
  // Test hooks (not part of the real API).
  __fake: { recorded, setSettings, changeSettings, registeredCommands, missing, makeDocument, Selection, Position },
};

module.exports = new Proxy(api, {
  get(target, prop) {
    if (!(prop in target) && typeof prop === 'string' && prop !== 'then' && prop !== '__esModule') {
      missing.add(prop);
    }
    return target[prop];
  },
});
