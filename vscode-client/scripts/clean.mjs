// Removes the folders given as arguments (relative to vscode-client/).
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const name of process.argv.slice(2)) {
  rmSync(join(root, name), { recursive: true, force: true });
}
