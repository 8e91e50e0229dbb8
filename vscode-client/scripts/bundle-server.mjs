// `npm run bundle`: installs the tfphi server from this repository (and its
// dependencies, for the current platform) into bundled/libs, so that the
// extension can run it with `python -m tfphi serve` and PYTHONPATH=bundled/libs.
//
// The interpreter is $TFPHI_PYTHON, else python3 (python on Windows).
// The resulting .vsix is platform specific (tree-sitter wheels are native).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(root, '..');
const target = join(root, 'bundled', 'libs');
const python = process.env.TFPHI_PYTHON || (process.platform === 'win32' ? 'python' : 'python3');

rmSync(target, { recursive: true, force: true });
const args = ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-compile', '--target', target, repoRoot];
console.log(`${python} ${args.join(' ')}`);
const result = spawnSync(python, args, { stdio: 'inherit' });
if (result.error) {
  console.error(`bundle: cannot run ${python}: ${result.error.message}`);
  process.exit(1);
}
if (result.status !== 0) {
  console.error(`bundle: pip exited with ${result.status}`);
  process.exit(result.status ?? 1);
}
console.log(`bundle: tfphi installed into ${target}`);
