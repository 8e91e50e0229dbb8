/**
 * Resolution of the command line that starts the tfphi language server.
 *
 * This module is pure: it never touches the file system or spawns a process
 * itself. Everything it needs to know about the machine comes through the
 * injected {@link Probes}, so the whole search order can be unit-tested
 * without VS Code (see test/serverCommand.test.ts).
 *
 * Search order:
 *   1. the `tfphi.server.command` setting (authoritative when set);
 *   2. the server bundled inside the extension (`bundled/libs`), run with the
 *      `tfphi.interpreter` setting or python3 (3.10 or later) and PYTHONPATH=bundled/libs;
 *   3. `tfphi` on PATH (`tfphi serve`);
 *   4. `<python> -m tfphi serve`, only when `<python> -c "import tfphi"` works.
 */

/** What the resolver may ask about the machine. */
export interface Probes {
  /** True when a regular file (or directory) exists at this absolute path. */
  fileExists(path: string): boolean;
  /** Absolute path of an executable found on PATH, or undefined. */
  which(command: string): string | undefined;
  /**
   * True when `argv... -c "import <module>"` exits 0. `env` holds extra
   * environment variables for that probe (e.g. PYTHONPATH).
   */
  canImport(argv: readonly string[], module: string, env?: Readonly<Record<string, string>>): boolean;
  /** The version (`3.11.7`) of the Python that `argv...` runs, or undefined when it does not run. */
  pythonVersion(argv: readonly string[]): string | undefined;
}

/** The oldest Python the server runs on (pyproject.toml: requires-python). */
export const MIN_PYTHON: readonly [number, number] = [3, 10];

/** A `tfphi.server.command` that VS Code did not apply, and where it was written. */
export interface IgnoredSetting {
  value: unknown;
  /** e.g. `the User settings (/home/me/.config/Code/User/settings.json)` */
  where: string;
  /** The remote the window is connected to (`vscode.env.remoteName`), e.g. `ssh-remote`. */
  remoteName: string;
}

/** The inputs of a resolution, as read from the settings and the extension. */
export interface ResolveInput {
  /** Value of `tfphi.server.command` (anything: it is validated here). */
  serverCommand?: unknown;
  /** Value of `tfphi.interpreter`: an argv array or a single string. */
  interpreter?: unknown;
  /** Absolute path of the installed extension (holds `bundled/libs`). */
  extensionPath: string;
  /** `process.platform`; decides path separators and the default python. */
  platform?: string;
  /** Environment of the extension host; PYTHONPATH is extended, not replaced. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Set when the window is remote: `tfphi.server.command` found where VS Code ignores it. */
  ignoredServerCommand?: IgnoredSetting;
  /** `vscode.env.remoteName` (undefined in a local window). */
  remoteName?: string;
}

export type ServerSource = 'setting' | 'bundled' | 'path' | 'python-module';

export interface ServerCommand {
  ok: true;
  source: ServerSource;
  command: string;
  args: string[];
  /** Extra environment variables to set for the server process. */
  env: Record<string, string>;
  /** One line for the output channel / status bar tooltip. */
  description: string;
  /** Every step that was tried, in order, with its outcome. */
  attempts: string[];
}

export interface ServerNotFound {
  ok: false;
  /** Short, user-facing message for the notification. */
  message: string;
  /** Every step that was tried, in order, with why it did not work. */
  attempts: string[];
}

export type Resolution = ServerCommand | ServerNotFound;

export const SERVE_ARGS: readonly string[] = ['serve'];
export const MODULE_ARGS: readonly string[] = ['-m', 'tfphi', 'serve'];

/** Joins paths with the separator of the target platform (no node:path, to stay pure). */
export function joinPath(platform: string, ...parts: string[]): string {
  const sep = platform === 'win32' ? '\\' : '/';
  return parts
    .map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, '') : p.replace(/^[\\/]+|[\\/]+$/g, '')))
    .filter((p, i) => i === 0 || p.length > 0)
    .join(sep);
}

/** The bundled server's library folder inside the extension. */
export function bundledLibsPath(extensionPath: string, platform: string): string {
  return joinPath(platform, extensionPath, 'bundled', 'libs');
}

/** Normalizes a setting that should be a non-empty array of non-empty strings. */
export function asArgv(value: unknown): string[] | undefined {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed.length > 0 ? [trimmed] : undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    return undefined;
  }
  if (!value.every((v): v is string => typeof v === 'string')) {
    return undefined;
  }
  if (value[0].trim().length === 0) {
    return undefined;
  }
  return [...value];
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null) {
    return false;
  }
  if (Array.isArray(value)) {
    return value.length > 0;
  }
  if (typeof value === 'string') {
    return value.trim().length > 0;
  }
  return true;
}

function looksLikePath(command: string): boolean {
  return command.includes('/') || command.includes('\\');
}

/** Finds an executable: a path is checked with fileExists, a bare name with which(). */
function locate(command: string, probes: Probes): string | undefined {
  if (looksLikePath(command)) {
    return probes.fileExists(command) ? command : undefined;
  }
  return probes.which(command);
}

export function defaultPython(platform: string): string {
  return platform === 'win32' ? 'python' : 'python3';
}

function quote(argv: readonly string[]): string {
  return argv.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

/** The install advice shown when nothing works. */
export function installAdvice(platform: string): string {
  const py = defaultPython(platform);
  return (
    'tfphi: no language server found. Install it with `pipx install tfphi` (then `tfphi` is on PATH), ' +
    `or with \`pip install tfphi\` into the Python that \`${py}\` runs (a virtual environment), so that \`${py} -m tfphi serve\` works, ` +
    'or point the setting `tfphi.server.command` at it, e.g. ' +
    '["/path/to/.venv/bin/tfphi", "serve"].'
  );
}

/** The advice when the extension bundles the server but no suitable Python runs it. */
export function pythonAdvice(platform: string, python: string, problem: string): string {
  const where = platform === 'win32' ? 'python.org or the Microsoft Store' : platform === 'darwin' ? 'python.org or Homebrew' : 'your package manager or python.org';
  return (
    `tfphi: the bundled server needs Python ${MIN_PYTHON.join('.')} or later, and ${problem}. ` +
    `Install Python ${MIN_PYTHON.join('.')}+ (from ${where}) so that \`${python}\` on PATH runs it, ` +
    'or set `tfphi.interpreter` to its path, e.g. "/usr/local/bin/python3.12"; then run *tfphi: Restart Server*.'
  );
}

/** Why a `tfphi.server.command` written in the User settings did nothing in a remote window. */
export function ignoredSettingAdvice(ignored: IgnoredSetting): string {
  return (
    `Your \`tfphi.server.command\` (${JSON.stringify(ignored.value)}) in ${ignored.where} was ignored: ` +
    `this window runs on a remote machine (${ignored.remoteName}), and the setting is machine-overridable, ` +
    'so VS Code reads it there only from the Remote settings (*Preferences: Open Remote Settings*) ' +
    'or the workspace settings. Move it there, or remove it to use the bundled server.'
  );
}

/** `3.9.18` -> [3, 9]; undefined when it does not look like a version. */
export function parseVersion(text: string | undefined): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)/.exec(text ?? '');
  return m === null ? undefined : [Number(m[1]), Number(m[2])];
}

function oldEnough(version: [number, number]): boolean {
  return version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]);
}

/**
 * Chooses how to start the server. Never throws; when nothing works the
 * result says what was tried and what to install.
 */
export function resolveServerCommand(input: ResolveInput, probes: Probes): Resolution {
  const platform = input.platform ?? 'linux';
  const attempts: string[] = [];
  const interpreterSetting = asArgv(input.interpreter);
  if (isSet(input.interpreter) && interpreterSetting === undefined) {
    attempts.push('tfphi.interpreter: ignored, it must be a string or a non-empty array of strings');
  }

  // 1. Explicit setting: authoritative. If it is wrong we say so instead of
  //    silently starting some other server.
  if (isSet(input.serverCommand)) {
    const argv = Array.isArray(input.serverCommand) ? asArgv(input.serverCommand) : undefined;
    if (argv === undefined) {
      attempts.push('tfphi.server.command: must be a non-empty array of strings, e.g. ["/path/tfphi", "serve"]');
      return {
        ok: false,
        message:
          'tfphi: the setting `tfphi.server.command` must be a non-empty array of strings, ' +
          'e.g. ["/path/to/tfphi", "serve"].',
        attempts,
      };
    }
    const [command, ...args] = argv;
    const found = locate(command, probes);
    if (found === undefined) {
      attempts.push(`tfphi.server.command: ${command} was not found`);
      return {
        ok: false,
        message:
          `tfphi: the setting \`tfphi.server.command\` names ${command}, which was not found. ` +
          'Fix the path, or remove the setting to use a bundled or installed tfphi (`pipx install tfphi`).',
        attempts,
      };
    }
    attempts.push(`tfphi.server.command: using ${quote(argv)}`);
    return {
      ok: true,
      source: 'setting',
      command,
      args,
      env: {},
      description: `tfphi.server.command: ${quote(argv)}`,
      attempts,
    };
  }

  const python = interpreterSetting ?? [defaultPython(platform)];
  const pythonFound = locate(python[0], probes);

  // 2. Server bundled inside the extension: needs a Python 3.10+ to run it.
  const libs = bundledLibsPath(input.extensionPath, platform);
  const bundledPackage = joinPath(platform, libs, 'tfphi', '__init__.py');
  let pythonProblem: string | undefined;
  if (!probes.fileExists(bundledPackage)) {
    attempts.push(`bundled server: not present (${bundledPackage})`);
  } else if (pythonFound === undefined) {
    pythonProblem = `\`${python[0]}\` was not found${looksLikePath(python[0]) ? '' : ' on PATH'}`;
    attempts.push(`bundled server: present, but ${pythonProblem}`);
  } else {
    const runs = [pythonFound, ...python.slice(1)];
    const versionText = probes.pythonVersion(runs);
    const version = parseVersion(versionText);
    if (version === undefined) {
      pythonProblem = `\`${quote(runs)}\` did not run`;
      attempts.push(`bundled server: present, but ${pythonProblem}`);
    } else if (!oldEnough(version)) {
      pythonProblem = `\`${pythonFound}\` is Python ${versionText}`;
      attempts.push(`bundled server: present, but ${pythonProblem} (${MIN_PYTHON.join('.')} or later needed)`);
    } else {
      const sep = platform === 'win32' ? ';' : ':';
      const existing = input.env?.PYTHONPATH;
      const pythonPath = existing !== undefined && existing.length > 0 ? `${libs}${sep}${existing}` : libs;
      const args = [...python.slice(1), ...MODULE_ARGS];
      attempts.push(`bundled server: using ${quote([pythonFound, ...args])} with PYTHONPATH=${libs} (Python ${versionText})`);
      return {
        ok: true,
        source: 'bundled',
        command: pythonFound,
        args,
        env: { PYTHONPATH: pythonPath },
        description: `bundled server: Python ${versionText} at ${pythonFound}, tfphi from ${libs}`,
        attempts,
      };
    }
  }

  // 3. tfphi on PATH.
  const onPath = probes.which('tfphi');
  if (onPath !== undefined) {
    attempts.push(`PATH: using ${onPath} serve`);
    return {
      ok: true,
      source: 'path',
      command: onPath,
      args: [...SERVE_ARGS],
      env: {},
      description: `tfphi on PATH (${onPath} serve)`,
      attempts,
    };
  }
  attempts.push('PATH: no tfphi executable');

  // 4. python -m tfphi, when the module is importable.
  if (pythonFound === undefined) {
    attempts.push(`python module: the interpreter ${python[0]} was not found`);
  } else if (!probes.canImport(python, 'tfphi')) {
    attempts.push(`python module: \`${quote(python)} -c "import tfphi"\` failed`);
  } else {
    const args = [...python.slice(1), ...MODULE_ARGS];
    attempts.push(`python module: using ${quote([python[0], ...args])}`);
    return {
      ok: true,
      source: 'python-module',
      command: python[0],
      args,
      env: {},
      description: `python module (${quote([python[0], ...args])})`,
      attempts,
    };
  }

  let message = pythonProblem !== undefined ? pythonAdvice(platform, python[0], pythonProblem) : installAdvice(platform);
  if (input.ignoredServerCommand !== undefined) {
    attempts.push(`tfphi.server.command: ignored in this remote window (${input.ignoredServerCommand.where})`);
    message = `${message} ${ignoredSettingAdvice(input.ignoredServerCommand)}`;
  } else if (input.remoteName !== undefined) {
    attempts.push(
      `tfphi.server.command: not set for this remote window (${input.remoteName}); a value in your local User ` +
        'settings is not applied here, put it in the Remote settings',
    );
  }
  return { ok: false, message, attempts };
}
