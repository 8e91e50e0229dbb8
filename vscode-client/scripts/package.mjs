// `npm run package [-- --target T ...]`: one .vsix per target platform, each carrying the tfphi
// server and every dependency it needs on that platform, so that installing the .vsix is all a
// user with Python 3.10+ does.
//
// For each target: the tfphi wheel (built once from this repository) and its dependencies are
// fetched as wheels for that platform (`pip download --platform ... --only-binary=:all:`), for
// every CPython from 3.10 to 3.14, and unpacked into bundled/libs. Pure-Python wheels are the same
// for every version; tree-sitter's compiled module carries the version in its file name
// (`_binding.cpython-312-x86_64-linux-gnu.so`, `_binding.cp312-win_amd64.pyd`), so the five
// builds sit side by side and each Python imports its own. Then `vsce package --target T`
// writes tfphi-T-<version>.vsix.
//
// Without --target, all five targets are built. $TFPHI_PYTHON selects the Python that runs pip.
import AdmZip from 'adm-zip';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = resolve(root, '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const python = process.env.TFPHI_PYTHON || (process.platform === 'win32' ? 'python' : 'python3');

/** VS Code target -> pip platform tags (pip also accepts older manylinux / macOS tags below these). */
export const TARGETS = {
  'linux-x64': ['manylinux_2_28_x86_64', 'manylinux_2_17_x86_64', 'manylinux2014_x86_64'],
  'linux-arm64': ['manylinux_2_28_aarch64', 'manylinux_2_17_aarch64', 'manylinux2014_aarch64'],
  // google-re2 (the regex functions, RE2 as Terraform's) publishes macOS wheels for macOS 14 and later.
  'darwin-x64': ['macosx_14_0_x86_64', 'macosx_11_0_x86_64'],
  'darwin-arm64': ['macosx_14_0_arm64', 'macosx_11_0_arm64'],
  'win32-x64': ['win_amd64'],
};
export const PYTHON_VERSIONS = ['3.10', '3.11', '3.12', '3.13', '3.14'];
// pip evaluates environment markers against the Python running it, not the target version:
// the backports that tfphi and cattrs need on 3.10 are named here (unused on newer Pythons).
const BACKPORTS = ['tomli>=2.0', 'exceptiongroup>=1.1.1'];

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) {
    throw new Error(`cannot run ${command}: ${result.error.message}`);
  }
  if (result.status !== 0) {
    throw new Error(`${command} exited with ${result.status}`);
  }
}

function parseTargets(argv) {
  const targets = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--target') {
      targets.push(argv[(i += 1)]);
    } else if (argv[i].startsWith('--target=')) {
      targets.push(argv[i].slice('--target='.length));
    } else {
      throw new Error(`unknown argument ${argv[i]} (expected --target T)`);
    }
  }
  for (const t of targets) {
    if (!(t in TARGETS)) {
      throw new Error(`unknown target ${t}; known: ${Object.keys(TARGETS).join(', ')}`);
    }
  }
  return targets.length > 0 ? targets : Object.keys(TARGETS);
}

function buildServerWheel(work) {
  const dir = join(work, 'server-wheel');
  rmSync(dir, { recursive: true, force: true });
  run(python, ['-m', 'pip', 'wheel', '--quiet', '--disable-pip-version-check', '--no-deps', '--wheel-dir', dir, repoRoot]);
  const wheel = readdirSync(dir).find((f) => f.startsWith('tfphi-') && f.endsWith('.whl'));
  if (wheel === undefined) {
    throw new Error(`no tfphi wheel in ${dir}`);
  }
  return join(dir, wheel);
}

function downloadWheels(target, serverWheel, work) {
  const dir = join(work, 'wheels', target);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const pip = (pythonVersion, args) =>
    run(python, [
      '-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--only-binary=:all:',
      ...TARGETS[target].flatMap((p) => ['--platform', p]),
      '--python-version', pythonVersion, '--implementation', 'cp', '--dest', dir, ...args,
    ]);
  const [oldest, ...newer] = PYTHON_VERSIONS;
  pip(oldest, [serverWheel, ...BACKPORTS]);
  // Only wheels built for one CPython version (tag cpXY-cpXY) differ between versions; the
  // others (py3-none, abi3) serve them all. Fetch the same releases for the newer versions.
  // A wheel name may carry a build tag between version and Python tag (google_re2-1.1.20251105-1-cp310-...).
  const perVersion = readdirSync(dir)
    .map((f) => /^([^-]+)-([^-]+)(?:-\d[^-]*)?-cp\d+-cp\d+-/.exec(f))
    .filter((m) => m !== null)
    .map((m) => `${m[1]}==${m[2]}`);
  if (perVersion.length > 0) {
    for (const pythonVersion of newer) {
      pip(pythonVersion, ['--no-deps', ...perVersion]);
    }
  }
  return readdirSync(dir).filter((f) => f.endsWith('.whl')).map((f) => join(dir, f));
}

function unpack(wheels, libs) {
  rmSync(libs, { recursive: true, force: true });
  mkdirSync(libs, { recursive: true });
  for (const wheel of wheels) {
    new AdmZip(wheel).extractAllTo(libs, true);
  }
  console.log(`package: ${wheels.length} wheels unpacked into ${libs}`);
}

function main() {
  const targets = parseTargets(process.argv.slice(2));
  const work = join(root, '.package');
  const serverWheel = buildServerWheel(work);
  const libs = join(root, 'bundled', 'libs');
  const built = [];
  try {
    for (const target of targets) {
      unpack(downloadWheels(target, serverWheel, work), libs);
      const out = `tfphi-${target}-${version}.vsix`;
      rmSync(join(root, out), { force: true });
      run('npx', ['--no-install', 'vsce', 'package', '--target', target, '--out', out], { cwd: root });
      built.push(out);
    }
  } finally {
    rmSync(join(root, 'bundled'), { recursive: true, force: true });
  }
  for (const out of built) {
    console.log(`package: ${out} ${(statSync(join(root, out)).size / 1024 / 1024).toFixed(1)} MiB`);
  }
}

try {
  main();
} catch (error) {
  console.error(`package: ${error.message}`);
  process.exit(1);
}
