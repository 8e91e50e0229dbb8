import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  buildPreview,
  emptyMessage,
  fillCommandArgs,
  isPreviewCommand,
  PREVIEW_SPECIALIZATION,
  provenanceComment,
  safeFileStem,
  SHOW_TRACE,
} from '../src/preview';

describe('fillCommandArgs', () => {
  const cursor = { uri: 'file:///w/main.tf', line: 15, character: 20 };

  it('fills uri and position from the cursor when invoked from the palette', () => {
    assert.deepEqual(fillCommandArgs([], cursor), [
      { uri: 'file:///w/main.tf', position: { line: 15, character: 20 } },
    ]);
  });

  it('passes code lens arguments through unchanged', () => {
    const lens = [{ uri: 'file:///w/main.tf', address: 'aws_db_instance.app.engine_version' }];
    const out = fillCommandArgs(lens, cursor);
    assert.deepEqual(out, lens);
  });

  it('returns undefined without arguments and without a cursor', () => {
    assert.equal(fillCommandArgs([], undefined), undefined);
  });
});

describe('buildPreview: tfphi.showTrace', () => {
  it('builds a markdown document named after the title', () => {
    const out = buildPreview(SHOW_TRACE, {
      title: 'aws_db_instance.app.engine_version',
      markdown: '| value | condition |\n|---|---|\n| "15.4" | var.env == "prod" |',
    });
    assert.deepEqual(out, {
      kind: 'document',
      document: {
        languageId: 'markdown',
        fileName: 'aws_db_instance.app.engine_version.md',
        content: '| value | condition |\n|---|---|\n| "15.4" | var.env == "prod" |\n',
      },
    });
  });

  it('null, errors and malformed answers give the "no trace" message', () => {
    for (const answer of [null, undefined, {}, { title: 'x' }, { markdown: 3 }, 'text', []]) {
      assert.deepEqual(buildPreview(SHOW_TRACE, answer), {
        kind: 'empty',
        message: 'tfphi: no trace is available at the cursor.',
      });
    }
  });

  it('a missing title gets a default file name', () => {
    const out = buildPreview(SHOW_TRACE, { markdown: 'x\n' });
    assert.ok(out.kind === 'document');
    assert.equal(out.document.fileName, 'tfphi trace.md');
    assert.equal(out.document.content, 'x\n');
  });
});

describe('buildPreview: tfphi.previewSpecialization', () => {
  const provenance = [
    {
      module: 'db_v15_4',
      source_field: 'aws_db_instance.app.engine_version',
      branch_value: '15.4',
      gate: 'var.customer_env == "prod"',
      trace_path: ['Field aws_db_instance.app.engine_version', 'Prim "15.4"'],
      source_span: 'main.tf:16:20',
      compiler_version: '0.1.0',
    },
  ];

  it('builds a terraform document with the provenance as a trailing comment block', () => {
    const hcl = 'module "db_v15_4" {\n  count = var.customer_env == "prod" ? 1 : 0\n}';
    const out = buildPreview(PREVIEW_SPECIALIZATION, { title: 'specialize engine_version', hcl, provenance });
    assert.ok(out.kind === 'document');
    const doc = out.document;
    assert.equal(doc.languageId, 'terraform');
    assert.equal(doc.fileName, 'specialize engine_version.tf');
    assert.ok(doc.content.startsWith(`${hcl}\n\n# --- tfphi provenance (JSON) ---\n`));
    assert.ok(doc.content.endsWith('# --- end of provenance ---\n'));
    // Every added line is an HCL comment, and the JSON can be recovered.
    const tail = doc.content.slice(hcl.length + 1).split('\n').filter((l) => l.length > 0);
    assert.ok(tail.every((l) => l.startsWith('#')));
    const json = tail
      .slice(1, -1)
      .map((l) => l.replace(/^# ?/, ''))
      .join('\n');
    assert.deepEqual(JSON.parse(json), provenance);
  });

  it('no provenance: the HCL alone', () => {
    const out = buildPreview(PREVIEW_SPECIALIZATION, { title: 't', hcl: 'locals {}\n', provenance: [] });
    assert.ok(out.kind === 'document');
    assert.equal(out.document.content, 'locals {}\n');
    const missing = buildPreview(PREVIEW_SPECIALIZATION, { title: 't', hcl: 'locals {}' });
    assert.ok(missing.kind === 'document');
    assert.equal(missing.document.content, 'locals {}\n');
  });

  it('null and malformed answers give the "no specialization" message', () => {
    for (const answer of [null, { title: 't', markdown: 'x' }, { hcl: 1 }]) {
      assert.deepEqual(buildPreview(PREVIEW_SPECIALIZATION, answer), {
        kind: 'empty',
        message: 'tfphi: no specialization is available at the cursor.',
      });
    }
    assert.equal(emptyMessage(PREVIEW_SPECIALIZATION), 'tfphi: no specialization is available at the cursor.');
  });
});

describe('helpers', () => {
  it('isPreviewCommand', () => {
    assert.ok(isPreviewCommand('tfphi.showTrace'));
    assert.ok(isPreviewCommand('tfphi.previewSpecialization'));
    assert.ok(!isPreviewCommand('tfphi.applyFix'));
  });

  it('safeFileStem removes path separators and control characters', () => {
    assert.equal(safeFileStem('module.db/aws:x', 'f'), 'module.db_aws_x');
    assert.equal(safeFileStem('../../etc/passwd', 'f'), '_.._etc_passwd');
    assert.equal(safeFileStem('   ', 'fallback'), 'fallback');
    assert.equal(safeFileStem('a\u0000b\nc', 'f'), 'a_b_c');
    assert.ok(safeFileStem('x'.repeat(500), 'f').length <= 120);
  });

  it('provenanceComment of nothing is empty', () => {
    assert.equal(provenanceComment([]), '');
  });
});
