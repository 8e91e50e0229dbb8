import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { isFieldKey, readRawSettings, SERVER_SETTING_SECTIONS, settingsToInitOptions } from '../src/settings';

describe('settingsToInitOptions', () => {
  it('defaults', () => {
    assert.deepEqual(settingsToInitOptions(undefined), {
      limits: { depth: 20, branches: 16 },
      fields: {},
      diagnostics: { severity: null },
      inlayHints: { enabled: true },
      ignore: [],
    });
    assert.deepEqual(settingsToInitOptions({}), settingsToInitOptions(undefined));
  });

  it('maps every setting to exactly the shape the server decodes', () => {
    const out = settingsToInitOptions({
      limits: { depth: 30, branches: 8 },
      fields: {
        'aws_db_instance.engine_version': { universe: ['14.9', '15.4'], severity: 'error' },
        'aws_lambda_function.runtime': { universe: ['python3.12'] },
      },
      diagnostics: { severity: 'hint' },
      inlayHints: { enabled: false },
      ignore: ['examples/legacy', '**/fixtures/**'],
    });
    assert.deepEqual(out, {
      limits: { depth: 30, branches: 8 },
      fields: {
        'aws_db_instance.engine_version': { universe: ['14.9', '15.4'], severity: 'error' },
        'aws_lambda_function.runtime': { universe: ['python3.12'], severity: 'warning' },
      },
      diagnostics: { severity: 'hint' },
      inlayHints: { enabled: false },
      ignore: ['examples/legacy', '**/fixtures/**'],
    });
    assert.deepEqual(Object.keys(out), ['limits', 'fields', 'diagnostics', 'inlayHints', 'ignore']);
    // JSON round trip: it is what goes on the wire.
    assert.deepEqual(JSON.parse(JSON.stringify(out)), out);
  });

  it('malformed limits fall back to the defaults', () => {
    for (const bad of [0, -1, 2.5, '20', null, Number.NaN]) {
      assert.deepEqual(settingsToInitOptions({ limits: { depth: bad, branches: bad } }).limits, {
        depth: 20,
        branches: 16,
      });
    }
  });

  it('severity: each valid value passes, anything else is null', () => {
    for (const s of ['error', 'warning', 'information', 'hint', 'off']) {
      assert.equal(settingsToInitOptions({ diagnostics: { severity: s } }).diagnostics.severity, s);
    }
    for (const s of [null, undefined, 'info', 'ERROR', 3]) {
      assert.equal(settingsToInitOptions({ diagnostics: { severity: s } }).diagnostics.severity, null);
    }
  });

  it('fields: bad keys and entries are dropped; universes keep Terraform values; severity defaults', () => {
    const out = settingsToInitOptions({
      fields: {
        'not a key': { universe: ['x'] },
        noDot: { universe: ['x'] },
        'aws_db_instance.engine_version': 'not an object',
        'aws_rds_cluster.engine_version': {
          universe: ['a', 1, true, null, { k: 'v' }, ['l'], Number.POSITIVE_INFINITY, 2.5],
          severity: 'bogus',
        },
        'aws_db_instance.restore_to_point_in_time.source_db_instance_identifier': {},
      },
    });
    assert.deepEqual(out.fields, {
      'aws_db_instance.restore_to_point_in_time.source_db_instance_identifier': { universe: [], severity: 'warning' },
      'aws_rds_cluster.engine_version': {
        universe: ['a', 1, true, 2.5],
        severity: 'warning',
      },
    });
    assert.deepEqual(settingsToInitOptions({ fields: ['x'] }).fields, {});
  });

  it('fields with severity off are kept (they silence the field)', () => {
    const out = settingsToInitOptions({ fields: { 'aws_mq_broker.engine_version': { severity: 'off' } } });
    assert.deepEqual(out.fields, { 'aws_mq_broker.engine_version': { universe: [], severity: 'off' } });
  });

  it('inlay hints and ignore are type checked', () => {
    assert.equal(settingsToInitOptions({ inlayHints: { enabled: 'no' } }).inlayHints.enabled, true);
    assert.deepEqual(settingsToInitOptions({ ignore: ['a', 3, '', ' ', 'b'] }).ignore, ['a', 'b']);
    assert.deepEqual(settingsToInitOptions({ ignore: 'a' }).ignore, []);
  });

  it('isFieldKey', () => {
    assert.ok(isFieldKey('aws_db_instance.engine_version'));
    assert.ok(isFieldKey('aws_db_instance.restore_to_point_in_time.source_db_instance_identifier'));
    assert.ok(!isFieldKey('aws_db_instance'));
    assert.ok(!isFieldKey('.engine'));
    assert.ok(!isFieldKey('a.b c'));
  });
});

describe('readRawSettings', () => {
  it('reads the dotted keys of the tfphi section', () => {
    const values: Record<string, unknown> = {
      'limits.depth': 7,
      'limits.branches': 3,
      fields: { 'aws_eks_cluster.version': { universe: ['1.30'] } },
      'diagnostics.severity': 'error',
      'inlayHints.enabled': false,
      ignore: ['x'],
    };
    const asked: string[] = [];
    const raw = readRawSettings({
      get: (k) => {
        asked.push(k);
        return values[k];
      },
    });
    assert.deepEqual(settingsToInitOptions(raw), {
      limits: { depth: 7, branches: 3 },
      fields: { 'aws_eks_cluster.version': { universe: ['1.30'], severity: 'warning' } },
      diagnostics: { severity: 'error' },
      inlayHints: { enabled: false },
      ignore: ['x'],
    });
    assert.deepEqual(asked.sort(), Object.keys(values).sort());
  });
});

describe('SERVER_SETTING_SECTIONS', () => {
  it('are exactly the tfphi sub-sections named by the initializationOptions keys', () => {
    const keys = Object.keys(settingsToInitOptions(undefined)).map((k) => `tfphi.${k}`);
    assert.deepEqual([...SERVER_SETTING_SECTIONS], keys);
  });

  it('leave out the client-only settings', () => {
    for (const clientOnly of ['tfphi', 'tfphi.server', 'tfphi.interpreter', 'tfphi.trace']) {
      assert.ok(!SERVER_SETTING_SECTIONS.includes(clientOnly));
    }
  });
});
