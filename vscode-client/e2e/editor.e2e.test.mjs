// End-to-end tests of the packaged extension in a real VS Code (code-server + chromium).
// One editor for the whole file, in order: each test starts where the previous one left off,
// as a person's session would, and saves a screenshot under e2e-output/.
// The editor has no tfphi setting and no tfphi on PATH: the .vsix's bundled server must run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test as nodeTest } from 'node:test';
import { Editor } from './harness.mjs';

const editor = new Editor();
let page;

/**
 * A test that, when it fails, saves what the editor showed: a screenshot `fail-<n>.png`, the
 * focus, quick input, dialogs and recent workbench events `fail-<n>.txt`, and with
 * TFPHI_E2E_TRACE=1 a Playwright trace `fail-<n>.trace.zip`.
 */
let failures = 0;
function test(name, body) {
  return nodeTest(name, async () => {
    await editor.startTrace();
    try {
      await body();
    } catch (error) {
      failures += 1;
      await editor.shot(`fail-${failures}`).catch(() => undefined);
      await editor.dumpState(`fail-${failures}`).catch((e) => console.log(`no state dump: ${e}`));
      await editor.stopTrace(`fail-${failures}`).catch(() => undefined);
      throw error;
    }
    await editor.stopTrace();
  });
}

function hover() {
  return page.locator('.monaco-hover:not(.hidden)').first();
}

async function problemRows() {
  const rows = page.locator('.markers-panel .monaco-list-row');
  return rows.allInnerTexts();
}

describe('tfphi in VS Code', { timeout: 600_000 }, () => {
  before(async () => {
    await editor.start();
    page = editor.page;
  });

  after(async () => {
    if (process.env.TFPHI_E2E_KEEP === '1') {
      console.log(`kept ${editor.root}`);
    }
    await editor.stop();
  });

  test('activates on a Terraform workspace and shows the server running in the status bar', async () => {
    await editor.openFile('modules/postgres/main.tf');
    const status = page.locator('[id="tfphi.tfphi.tfphi.status"]');
    await status.locator('.codicon-check').waitFor({ timeout: 90_000 });
    assert.equal((await status.innerText()).trim(), 'tfphi');
    await editor.shot('01-status');

    // The output channel says which server started, and from where: the bundled one.
    await editor.runCommand('tfphi: Show Output');
    const output = page.locator('.part.panel .monaco-editor .view-lines').first();
    await output.getByText('Starting bundled server', { exact: false }).waitFor({ timeout: 30_000 });
    // Lines start with a timestamp; the output wraps long ones.
    const text = (await output.innerText()).replace(/\u00a0/g, ' ').replace(/\n(?!\[)/g, '');
    assert.match(
      text,
      /Starting bundled server: Python 3\.\d+\.\d+ at \/\S+\/python3, tfphi from \/tmp\/tfphi-e2e-\w+\/extensions\/tfphi\.tfphi-0\.1\.0\/bundled\/libs/,
    );
    await editor.shot('02-output');
  });

  test('hovering a field shows its values and conditions', async () => {
    await editor.openFile('modules/postgres/main.tf');
    await editor.goTo(4, 3);
    await editor.runCommand('Show or Focus Hover');
    // Two tables: the branches (value | condition), then the value each deployment gives.
    await hover().locator('table').last().waitFor({ timeout: 30_000 });
    const cells = await hover().locator('table tr').allInnerTexts();
    assert.deepEqual(
      cells.map((row) => row.replace(/\s+/g, ' ').trim()),
      [
        'value condition',
        '"15.4" var.customer_env == "prod"',
        '"14.9" var.customer_env != "prod"',
        'deployment value',
        'terraform.tfvars "15.4"',
      ],
    );
    await editor.shot('03-hover');
    await page.keyboard.press('Escape');
  });

  test('inlay hints show the values after the field', async () => {
    const line = page.locator('.editor-group-container.active .view-line', { hasText: 'engine_version    = var.engine_version' });
    await line.getByText('⟵').waitFor({ timeout: 30_000 });
    assert.match(await line.innerText(), /^\s*engine_version\s+=\s+var\.engine_version\s*⟵\s"15\.4"\s\|\s"14\.9"$/);
    await editor.shot('04-inlay-hints');
  });

  test('the Problems panel lists the unbounded field', async () => {
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'node_type' }).first().waitFor({ timeout: 30_000 });
    const rows = await problemRows();
    assert.ok(
      rows.some((r) => /can't determine the value of node_type/.test(r) && /unbounded-field/.test(r)),
      rows.join('\n'),
    );
    await editor.shot('05-problems');
  });

  test('the quick fix adds a validation block and the warning goes away', async () => {
    await editor.openFile('modules/cache/main.tf');
    await editor.goTo(8, 26);
    await editor.runCommand('Quick Fix...');
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Add validation block to var.cache_node_type' });
    await fix.waitFor({ timeout: 30_000 });
    await editor.shot('06-quick-fix');
    await fix.click();
    // The edit lands in the root variables.tf; the server re-traces and clears the warning.
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'node_type' }).first().waitFor({ state: 'detached', timeout: 30_000 });
    // The edit lands in a model with no tab; VS Code gives every dirty file a background tab 800 ms
    // later. openFile closes all editors first, and closing that tab unsaved would stop at a save
    // dialog: so wait for the tab, save until the disk has the edit (a save can land before the
    // edit does), then open the file.
    await page.locator('.tabs-container .tab', { hasText: 'variables.tf' }).first().waitFor({ timeout: 30_000 });
    const edited = join(editor.workspace, 'variables.tf');
    for (let attempt = 0; attempt < 10 && !readFileSync(edited, 'utf8').includes('contains(["cache.r6g.large"]'); attempt += 1) {
      await editor.runCommand('File: Save All Files');
      await page.waitForTimeout(1_000);
    }
    await editor.openFile('variables.tf');
    await editor.goTo(24, 1);
    // The edit as saved to disk: the variable with its new validation block, laid out as fmt does.
    const saved = readFileSync(join(editor.workspace, 'variables.tf'), 'utf8');
    const block = saved.slice(saved.indexOf('variable "cache_node_type"'), saved.indexOf('variable "lambda_runtime"'));
    assert.equal(
      block,
      [
        'variable "cache_node_type" {',
        '  type        = string',
        '  description = "Set by the customer at deployment time."',
        '',
        '  validation {',
        '    condition     = contains(["cache.r6g.large"], var.cache_node_type)',
        '    error_message = "The cache_node_type value must be one of: cache.r6g.large."',
        '  }',
        '}',
        '',
        '',
      ].join('\n'),
    );
    await editor.shot('07-fixed');
  });

  test('the code lens opens the specialization preview', async () => {
    await editor.openFile('modules/postgres/main.tf');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'specializations' }).first();
    await lens.waitFor({ timeout: 30_000 });
    assert.match(await lens.innerText(), /^2 specializations: /);
    await lens.click();
    await page.locator('.tab', { hasText: 'Specialization' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container .view-line', { hasText: 'module "' }).first().waitFor({ timeout: 30_000 });
    await editor.shot('08-specialization');
  });

  test('Show Trace opens the trace as a Markdown preview', async () => {
    await editor.openFile('modules/postgres/main.tf');
    await editor.goTo(4, 3);
    await editor.runCommand('tfphi: Show Trace');
    await page.locator('.tab', { hasText: /Trace|trace/ }).first().waitFor({ timeout: 30_000 });
    const preview = page.frameLocator('iframe.webview').frameLocator('#active-frame');
    await preview.locator('table').first().waitFor({ timeout: 30_000 });
    assert.match(await preview.locator('body').innerText(), /"15\.4"/);
    await editor.shot('09-show-trace');
  });

  test('Show Trace Graph draws each branch of the field in a webview', async () => {
    await editor.openFile('modules/postgres/main.tf');
    await editor.goTo(4, 3);
    await editor.runCommand('tfphi: Show Trace Graph');
    await page.locator('.tab', { hasText: 'Trace graph' }).first().waitFor({ timeout: 30_000 });
    const view = page.frameLocator('iframe.webview').last().frameLocator('#active-frame');
    await view.locator('svg .node').first().waitFor({ timeout: 30_000 });
    const labels = await view.locator('svg .node').evaluateAll((nodes) =>
      nodes.map((n) => `${n.getAttribute('class')}: ${Array.from(n.querySelectorAll('text')).map((t) => t.textContent).join(' / ')}`),
    );
    assert.deepEqual(labels, [
      'node kind-field has-location: module.database.aws_db_instance.app.engine_version / modules/postgres/main.tf:4:23',
      'node kind-variable has-location: var.engine_version / modules/postgres/variables.tf:5:10',
      'node kind-module_argument has-location: module.database / engine_version = / main.tf:6:3',
      'node kind-conditional: var.customer_env == "prod" ?',
      'node kind-literal has-location: "15.4" / main.tf:6:49',
      'node kind-literal has-location: "14.9" / main.tf:6:58',
    ]);
    // One stroke per branch on each edge, in the branch's colour.
    const strokes = await view.locator('svg path.edge').evaluateAll((paths) => paths.map((p) => p.getAttribute('stroke')));
    assert.deepEqual(strokes.sort(), ['#1f77b4', '#1f77b4', '#1f77b4', '#1f77b4', '#ff7f0e', '#ff7f0e', '#ff7f0e', '#ff7f0e']);
    const legend = await view.locator('ul.legend li').allInnerTexts();
    assert.deepEqual(legend, ['"15.4" when var.customer_env == "prod"', '"14.9" when var.customer_env != "prod"']);
    // The picture on its own: the graph's editor group maximized (best effort: only the picture depends on it).
    await page.keyboard.press('Escape');
    await editor.runCommand('View: Toggle Maximize Editor Group').catch(() => page.keyboard.press('Escape'));
    await page.mouse.move(640, 700); // no tooltip over the picture
    await page.waitForTimeout(1000);
    await editor.shot('10-trace-graph');
  });
});
