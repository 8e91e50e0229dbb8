// Bundles src/extension.ts and its dependencies (vscode-languageclient) into
// out/extension.js. Only `vscode` stays external: the host provides it.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = !process.argv.includes('--dev');

rmSync(join(root, 'out'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/extension.ts'],
  outfile: 'out/extension.js',
  bundle: true,
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  // jsonc-parser's UMD build requires its parts at run time: take its ES module build.
  mainFields: ['module', 'main'],
  target: 'node18',
  minify: production,
  keepNames: true,
  sourcemap: production ? false : 'inline',
  legalComments: 'none',
  logLevel: 'info',
});
// The trace graph webview's script: runs in the page, with dagre for the layout.
await build({
  absWorkingDir: root,
  entryPoints: ['src/webview/traceGraphView.ts'],
  outfile: 'out/traceGraphView.js',
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2020',
  minify: production,
  sourcemap: production ? false : 'inline',
  legalComments: 'none',
  logLevel: 'info',
});
