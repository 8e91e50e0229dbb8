// `npm run check-vsix [file.vsix]`: opens the packaged extension and checks
// that it carries the contributions and the bundled language client.
// Exits non-zero when any check fails.
import AdmZip from 'adm-zip';
import { Buffer } from 'node:buffer';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const target = process.env.TFPHI_TARGET ?? 'linux-x64';
const vsixPath = resolve(root, process.argv[2] ?? `tfphi-${target}-${version}.vsix`);

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) {
    passed += 1;
    console.log(`ok - ${name}`);
  } else {
    failed += 1;
    console.log(`not ok - ${name}${detail ? `: ${detail}` : ''}`);
  }
}

if (!existsSync(vsixPath)) {
  console.error(`check-vsix: ${vsixPath} does not exist; run \`npm run package\` first`);
  process.exit(1);
}

let zip;
try {
  zip = new AdmZip(vsixPath);
} catch (error) {
  console.error(`check-vsix: ${vsixPath} is not a zip file: ${error.message}`);
  process.exit(1);
}
const entries = new Map(zip.getEntries().map((e) => [e.entryName, e]));
const text = (name) => entries.get(name)?.getData().toString('utf8');
const names = [...entries.keys()];

console.log(`check-vsix: ${vsixPath} (${statSync(vsixPath).size} bytes, ${entries.size} entries)`);

// --- package.json ---------------------------------------------------------
const manifestText = text('extension/package.json');
check('extension/package.json exists', manifestText !== undefined);
let manifest = {};
try {
  manifest = JSON.parse(manifestText ?? '{}');
} catch (error) {
  check('extension/package.json parses', false, error.message);
}
const contributes = manifest.contributes ?? {};

check('main is ./out/extension.js', manifest.main === './out/extension.js', String(manifest.main));
check('engines.vscode is ^1.82.0', manifest.engines?.vscode === '^1.82.0', String(manifest.engines?.vscode));
for (const field of ['publisher', 'repository', 'license']) {
  check(`package.json has ${field}`, manifest[field] !== undefined);
}
check('license is MIT', manifest.license === 'MIT');

// What the Visual Studio Marketplace and Open VSX show: the icon (a PNG of at least 128x128),
// categories, keywords, the repository.
const icon = manifest.icon ? entries.get(`extension/${manifest.icon}`) : undefined;
check('the icon is shipped', icon !== undefined, String(manifest.icon));
if (icon) {
  const png = icon.getData();
  const isPng = png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  check('the icon is a PNG', isPng);
  check('the icon is at least 128x128', isPng && png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128);
}
check('categories are set', (manifest.categories ?? []).includes('Linters') && (manifest.categories ?? []).includes('Programming Languages'));
check('keywords are set', (manifest.keywords ?? []).includes('terraform'));
check('the repository is https://github.com/tfphi/tfphi', String(manifest.repository?.url).startsWith('https://github.com/tfphi/tfphi'));

for (const event of ['onLanguage:terraform', 'workspaceContains:**/*.tf', 'workspaceContains:**/*.tofu', 'workspaceContains:**/terragrunt.hcl']) {
  check(`activation event ${event}`, (manifest.activationEvents ?? []).includes(event));
}

const terraform = (contributes.languages ?? []).find((l) => l.id === 'terraform');
check('contributes the terraform language', terraform !== undefined);
for (const ext of ['.tf', '.tfvars']) {
  check(`terraform language covers ${ext}`, (terraform?.extensions ?? []).includes(ext));
}

const commands = new Map((contributes.commands ?? []).map((c) => [c.command, c.title]));
const expectedCommands = {
  'tfphi.restartServer': 'Restart Server',
  'tfphi.showOutput': 'Show Output',
  'tfphi.showTrace': 'Show Trace',
  'tfphi.showTraceGraph': 'Show Trace Graph',
  'tfphi.previewSpecialization': 'Preview Specialization',
};
for (const [command, title] of Object.entries(expectedCommands)) {
  check(`command ${command} "${title}"`, commands.get(command) === title, String(commands.get(command)));
}

const properties = contributes.configuration?.properties ?? {};
const expectedSettings = {
  'tfphi.server.command': 'array',
  'tfphi.interpreter': ['array', 'string'],
  'tfphi.limits.depth': 'number',
  'tfphi.limits.branches': 'number',
  'tfphi.fields': 'object',
  'tfphi.diagnostics.severity': ['string', 'null'],
  'tfphi.inlayHints.enabled': 'boolean',
  'tfphi.ignore': 'array',
  'tfphi.trace.server': 'string',
};
for (const [key, type] of Object.entries(expectedSettings)) {
  const p = properties[key];
  check(`setting ${key}`, p !== undefined);
  check(`setting ${key} has type ${JSON.stringify(type)}`, JSON.stringify(p?.type) === JSON.stringify(type));
  check(`setting ${key} has a description`, Boolean(p?.description || p?.markdownDescription));
}
check('tfphi.limits.depth defaults to 20', properties['tfphi.limits.depth']?.default === 20);
check('tfphi.limits.branches defaults to 16', properties['tfphi.limits.branches']?.default === 16);
check('tfphi.inlayHints.enabled defaults to true', properties['tfphi.inlayHints.enabled']?.default === true);

// --- the bundled extension code ---------------------------------------------
const bundle = text('extension/out/extension.js');
check('extension/out/extension.js exists', bundle !== undefined);
const code = bundle ?? '';
check('extension.js contains the LanguageClient', /LanguageClient/.test(code));
check('extension.js contains the LSP protocol (initialize, textDocument/hover)', code.includes('textDocument/hover'));
check('extension.js exports activate', code.includes('activate'));
check('extension.js requires vscode (external)', /require\(["']vscode["']\)/.test(code));
check(
  'extension.js does not require vscode-languageclient at run time (it is bundled)',
  !/require\(["']vscode-languageclient/.test(code),
);

check('the trace graph webview script is shipped', entries.has('extension/out/traceGraphView.js'));

// --- the bundled server: tfphi and every dependency, for each CPython 3.10-3.14 --------
const libs = 'extension/bundled/libs/';
check('the server is bundled (bundled/libs/tfphi/__init__.py)', entries.has(`${libs}tfphi/__init__.py`));
for (const dependency of ['pygls', 'lsprotocol', 'cattrs', 'attrs', 'tree_sitter', 'tree_sitter_hcl', 'gmpy2', 're2']) {
  check(`dependency ${dependency} is bundled`, entries.has(`${libs}${dependency}/__init__.py`));
}
check('the server data files are bundled', names.some((n) => n.startsWith(`${libs}tfphi/data/`) && n.endsWith('.toml')));
// The compiled extensions, each built for one CPython: tree-sitter's binding, gmpy2 (numbers as
// cty holds them) and google-re2's _re2 (the regex functions).
for (const [label, prefix] of [['tree-sitter', 'tree_sitter/_binding.'], ['gmpy2', 'gmpy2/gmpy2.'], ['google-re2', 're2/_re2.']]) {
  const bindings = names.filter((n) => n.startsWith(`${libs}${prefix}`));
  for (const minor of [10, 11, 12, 13, 14]) {
    const tag = target.startsWith('win32') ? `cp3${minor}-win` : `cpython-3${minor}-`;
    check(`${label} is compiled for Python 3.${minor} (${target})`, bindings.some((n) => n.includes(tag)), bindings.join(', '));
  }
}
check('tomli is bundled for Python 3.10', entries.has(`${libs}tomli/__init__.py`));
check('manifest targets the platform', manifest.__metadata?.targetPlatform === undefined || manifest.__metadata.targetPlatform === target);
const vsixManifest = text('extension.vsixmanifest') ?? '';
check(`extension.vsixmanifest says TargetPlatform="${target}"`, vsixManifest.includes(`TargetPlatform="${target}"`));
check('no __pycache__ in the vsix', !names.some((n) => n.includes('__pycache__')));

// --- what must not be shipped ---------------------------------------------
check('no node_modules in the vsix', !names.some((n) => n.includes('/node_modules/')));
check('no TypeScript sources in the vsix', !names.some((n) => n.startsWith('extension/src/') || n.endsWith('.ts')));
check(
  'no tests in the vsix',
  !names.some((n) => /^extension\/(test|smoke|out-test)\//.test(n)),
);
check('README and LICENSE are shipped', entries.has('extension/readme.md') || entries.has('extension/README.md'));
check('LICENSE is shipped', names.some((n) => /^extension\/license(\.txt|\.md)?$/i.test(n)));

console.log(`check-vsix: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
