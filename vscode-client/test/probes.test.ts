import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { canImport, fileExists, pythonVersion, which } from '../src/probes';

describe('probes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfphi-probes-'));
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('which finds executables on PATH and skips non-executables', { skip: process.platform === 'win32' }, () => {
    const exe = path.join(dir, 'tfphi');
    fs.writeFileSync(exe, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'plain'), 'x', { mode: 0o644 });
    assert.equal(which('tfphi', { PATH: `/nonexistent:${dir}` }, 'linux'), exe);
    assert.equal(which('plain', { PATH: dir }, 'linux'), undefined);
    assert.equal(which('tfphi', { PATH: '' }, 'linux'), undefined);
  });

  it('fileExists', () => {
    assert.ok(fileExists(dir));
    assert.ok(!fileExists(path.join(dir, 'missing')));
  });

  it('canImport is false for a missing interpreter or a bad module name', () => {
    assert.equal(canImport([path.join(dir, 'no-python')], 'tfphi'), false);
    assert.equal(canImport(['python3'], 'os; import sys'), false);
    assert.equal(canImport([], 'tfphi'), false);
  });

  it('canImport runs the interpreter', { skip: process.platform === 'win32' }, () => {
    // A fake interpreter: exits 0 only when its arguments are `-c "import good"`.
    const fake = path.join(dir, 'fakepython');
    fs.writeFileSync(fake, '#!/bin/sh\n[ "$1" = "-c" ] && [ "$2" = "import good" ]\n', { mode: 0o755 });
    assert.equal(canImport([fake], 'good'), true);
    assert.equal(canImport([fake], 'bad'), false);
  });

  it('pythonVersion runs the interpreter and reads its version', { skip: process.platform === 'win32' }, () => {
    const fake = path.join(dir, 'oldpython');
    fs.writeFileSync(fake, '#!/bin/sh\necho 3.8.10\n', { mode: 0o755 });
    assert.equal(pythonVersion([fake]), '3.8.10');
    assert.equal(pythonVersion([path.join(dir, 'no-python')]), undefined);
    assert.equal(pythonVersion([]), undefined);
    const broken = path.join(dir, 'brokenpython');
    fs.writeFileSync(broken, '#!/bin/sh\necho oops; exit 1\n', { mode: 0o755 });
    assert.equal(pythonVersion([broken]), undefined);
  });
});
