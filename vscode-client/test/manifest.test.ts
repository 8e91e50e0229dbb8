// Checks that package.json's contributions agree with the code.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_BRANCHES, DEFAULT_DEPTH, SEVERITIES } from '../src/settings';

interface Manifest {
  main: string;
  activationEvents: string[];
  contributes: {
    languages: { id: string; extensions: string[] }[];
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, { default?: unknown; enum?: unknown[]; markdownDescription?: string; description?: string }> };
  };
}

function findManifest(): Manifest {
  let dir = __dirname;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) {
      const parsed = JSON.parse(fs.readFileSync(candidate, 'utf8')) as Manifest & { name?: string };
      if (parsed.name === 'tfphi') {
        return parsed;
      }
    }
    const parent = path.dirname(dir);
    assert.notEqual(parent, dir, 'package.json not found');
    dir = parent;
  }
}

describe('package.json', () => {
  const m = findManifest();
  const props = m.contributes.configuration.properties;

  it('activates on Terraform, OpenTofu and Terragrunt files', () => {
    assert.deepEqual(m.activationEvents, [
      'onLanguage:terraform',
      'workspaceContains:**/*.tf',
      'workspaceContains:**/*.tofu',
      'workspaceContains:**/terragrunt.hcl',
    ]);
    assert.equal(m.main, './out/extension.js');
  });

  it('contributes the terraform language for .tf, .tofu and .tfvars', () => {
    const tf = m.contributes.languages.find((l) => l.id === 'terraform');
    assert.ok(tf);
    assert.deepEqual(tf.extensions, ['.tf', '.tofu', '.tfvars']);
  });

  it('contributes the five commands', () => {
    assert.deepEqual(
      m.contributes.commands.map((c) => [c.command, c.title]),
      [
        ['tfphi.restartServer', 'Restart Server'],
        ['tfphi.showOutput', 'Show Output'],
        ['tfphi.showTrace', 'Show Trace'],
        ['tfphi.showTraceGraph', 'Show Trace Graph'],
        ['tfphi.previewSpecialization', 'Preview Specialization'],
      ],
    );
  });

  it('contributes every setting, each with a description', () => {
    assert.deepEqual(Object.keys(props).sort(), [
      'tfphi.diagnostics.severity',
      'tfphi.fields',
      'tfphi.ignore',
      'tfphi.inlayHints.enabled',
      'tfphi.interpreter',
      'tfphi.limits.branches',
      'tfphi.limits.depth',
      'tfphi.semanticHighlighting',
      'tfphi.server.command',
      'tfphi.trace.server',
    ]);
    for (const [key, p] of Object.entries(props)) {
      assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `${key} has a description`);
    }
  });

  it('defaults agree with the code', () => {
    assert.equal(props['tfphi.limits.depth'].default, DEFAULT_DEPTH);
    assert.equal(props['tfphi.limits.branches'].default, DEFAULT_BRANCHES);
    assert.equal(props['tfphi.inlayHints.enabled'].default, true);
    assert.equal(props['tfphi.diagnostics.severity'].default, null);
    assert.deepEqual(props['tfphi.diagnostics.severity'].enum, [...SEVERITIES, null]);
    assert.deepEqual(props['tfphi.trace.server'].enum, ['off', 'messages', 'verbose']);
  });
});
