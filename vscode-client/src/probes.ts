/**
 * Real implementations of the {@link Probes} used by serverCommand.ts.
 * Uses node's fs and child_process only (no `vscode`), so it is testable.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Probes } from './serverCommand';

function isExecutableFile(file: string): boolean {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) {
      return false;
    }
    if (process.platform === 'win32') {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Looks a command up on PATH (with PATHEXT on Windows). */
export function which(
  command: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: string = process.platform,
): string | undefined {
  const pathValue = env.PATH ?? env.Path ?? '';
  const delimiter = platform === 'win32' ? ';' : ':';
  const exts =
    platform === 'win32'
      ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((e) => e.length > 0)]
      : [''];
  for (const dir of pathValue.split(delimiter)) {
    if (dir.length === 0) {
      continue;
    }
    for (const ext of exts) {
      const candidate = path.join(dir, command + ext);
      if (isExecutableFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

export function fileExists(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Runs `argv -c "import module"` with a timeout; true when it exits 0. */
export function canImport(
  argv: readonly string[],
  module: string,
  env?: Readonly<Record<string, string>>,
  timeoutMs = 15_000,
): boolean {
  if (argv.length === 0 || !/^[A-Za-z_][A-Za-z0-9_.]*$/.test(module)) {
    return false;
  }
  try {
    const result = spawnSync(argv[0], [...argv.slice(1), '-c', `import ${module}`], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
      timeout: timeoutMs,
      windowsHide: true,
    });
    return result.status === 0;
  } catch {
    return false;
  }
}

/** The version of the Python that `argv` runs (`3.11.7`), or undefined when it does not run. */
export function pythonVersion(argv: readonly string[], timeoutMs = 15_000): string | undefined {
  if (argv.length === 0) {
    return undefined;
  }
  try {
    const result = spawnSync(argv[0], [...argv.slice(1), '-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: timeoutMs,
      windowsHide: true,
    });
    const text = result.status === 0 ? result.stdout.trim() : '';
    return /^\d+\.\d+\.\d+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

export const nodeProbes: Probes = {
  fileExists,
  which: (command) => which(command),
  canImport: (argv, module, env) => canImport(argv, module, env),
  pythonVersion: (argv) => pythonVersion(argv),
};
