import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { installAdvice, type Probes, resolveServerCommand, type ResolveInput } from '../src/serverCommand';

const EXT = '/ext';
const BUNDLED_INIT = '/ext/bundled/libs/tfphi/__init__.py';

interface FakeMachine {
  files?: string[];
  path?: Record<string, string>;
  importable?: string[][];
  /** Python version per interpreter path; default 3.11.7. */
  versions?: Record<string, string | undefined>;
}

function probes(machine: FakeMachine): Probes & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fileExists: (p) => {
      calls.push(`fileExists ${p}`);
      return (machine.files ?? []).includes(p);
    },
    which: (c) => {
      calls.push(`which ${c}`);
      return machine.path?.[c];
    },
    canImport: (argv, module) => {
      calls.push(`canImport ${argv.join(' ')} ${module}`);
      return (machine.importable ?? []).some((a) => a.join(' ') === argv.join(' '));
    },
    pythonVersion: (argv) => {
      calls.push(`pythonVersion ${argv.join(' ')}`);
      return machine.versions !== undefined && argv[0] in machine.versions ? machine.versions[argv[0]] : '3.11.7';
    },
  };
}

function input(extra: Partial<ResolveInput> = {}): ResolveInput {
  return { extensionPath: EXT, platform: 'linux', env: {}, ...extra };
}

describe('resolveServerCommand: search order', () => {
  const everything: FakeMachine = {
    files: ['/opt/tfphi', BUNDLED_INIT],
    path: { python3: '/usr/bin/python3', tfphi: '/usr/local/bin/tfphi', mytfphi: '/usr/bin/mytfphi' },
    importable: [['python3']],
  };

  it('1. uses tfphi.server.command first, even when everything else exists', () => {
    const r = resolveServerCommand(input({ serverCommand: ['/opt/tfphi', 'serve', '--log', 'x'] }), probes(everything));
    assert.equal(r.ok, true);
    assert.ok(r.ok);
    assert.equal(r.source, 'setting');
    assert.equal(r.command, '/opt/tfphi');
    assert.deepEqual(r.args, ['serve', '--log', 'x']);
    assert.deepEqual(r.env, {});
  });

  it('1. a bare command name in the setting is looked up on PATH', () => {
    const r = resolveServerCommand(input({ serverCommand: ['mytfphi', 'serve'] }), probes(everything));
    assert.ok(r.ok);
    assert.equal(r.source, 'setting');
    assert.equal(r.command, 'mytfphi');
  });

  it('2. uses the bundled server with python3 and PYTHONPATH=bundled/libs', () => {
    const r = resolveServerCommand(input(), probes(everything));
    assert.ok(r.ok);
    assert.equal(r.source, 'bundled');
    assert.equal(r.command, '/usr/bin/python3');
    assert.equal(r.description, 'bundled server: Python 3.11.7 at /usr/bin/python3, tfphi from /ext/bundled/libs');
    assert.deepEqual(r.args, ['-m', 'tfphi', 'serve']);
    assert.deepEqual(r.env, { PYTHONPATH: '/ext/bundled/libs' });
  });

  it('2. the bundled server keeps an existing PYTHONPATH after bundled/libs', () => {
    const r = resolveServerCommand(input({ env: { PYTHONPATH: '/a:/b' } }), probes(everything));
    assert.ok(r.ok);
    assert.deepEqual(r.env, { PYTHONPATH: '/ext/bundled/libs:/a:/b' });
  });

  it('2. the bundled server runs with tfphi.interpreter (array) when set', () => {
    const m: FakeMachine = { ...everything, files: [...(everything.files ?? []), '/venv/bin/python'] };
    const r = resolveServerCommand(input({ interpreter: ['/venv/bin/python', '-X', 'utf8'] }), probes(m));
    assert.ok(r.ok);
    assert.equal(r.source, 'bundled');
    assert.equal(r.command, '/venv/bin/python');
    assert.deepEqual(r.args, ['-X', 'utf8', '-m', 'tfphi', 'serve']);
  });

  it('2. the bundled server runs with tfphi.interpreter (string) when set', () => {
    const m: FakeMachine = { ...everything, path: { ...everything.path, 'python3.12': '/usr/bin/python3.12' } };
    const r = resolveServerCommand(input({ interpreter: 'python3.12' }), probes(m));
    assert.ok(r.ok);
    assert.equal(r.command, '/usr/bin/python3.12');
    assert.deepEqual(r.args, ['-m', 'tfphi', 'serve']);
  });

  it('2. on Windows: python, backslashes and ; in PYTHONPATH', () => {
    const m: FakeMachine = {
      files: ['C:\\ext\\bundled\\libs\\tfphi\\__init__.py'],
      path: { python: 'C:\\Python\\python.exe' },
    };
    const r = resolveServerCommand(
      { extensionPath: 'C:\\ext', platform: 'win32', env: { PYTHONPATH: 'D:\\x' } },
      probes(m),
    );
    assert.ok(r.ok);
    assert.equal(r.command, 'C:\\Python\\python.exe');
    assert.deepEqual(r.env, { PYTHONPATH: 'C:\\ext\\bundled\\libs;D:\\x' });
  });

  it('3. uses tfphi on PATH when nothing is bundled', () => {
    const m: FakeMachine = { ...everything, files: [] };
    const r = resolveServerCommand(input(), probes(m));
    assert.ok(r.ok);
    assert.equal(r.source, 'path');
    assert.equal(r.command, '/usr/local/bin/tfphi');
    assert.deepEqual(r.args, ['serve']);
    assert.match(r.attempts[0] ?? '', /bundled server: not present/);
  });

  it('3. uses tfphi on PATH when bundled exists but the interpreter does not', () => {
    const m: FakeMachine = { files: [BUNDLED_INIT], path: { tfphi: '/usr/local/bin/tfphi' } };
    const r = resolveServerCommand(input(), probes(m));
    assert.ok(r.ok);
    assert.equal(r.source, 'path');
    assert.match(r.attempts.join('\n'), /bundled server: present, but `python3` was not found on PATH/);
  });

  it('4. falls back to python3 -m tfphi serve when the module imports', () => {
    const m: FakeMachine = { path: { python3: '/usr/bin/python3' }, importable: [['python3']] };
    const p = probes(m);
    const r = resolveServerCommand(input(), p);
    assert.ok(r.ok);
    assert.equal(r.source, 'python-module');
    assert.equal(r.command, 'python3');
    assert.deepEqual(r.args, ['-m', 'tfphi', 'serve']);
    assert.ok(p.calls.includes('canImport python3 tfphi'));
    // Order: bundled, then PATH, then the import probe.
    const order = p.calls.map((c) => c.split(' ')[0]);
    assert.ok(order.indexOf('which') < order.indexOf('canImport'));
  });

  it('4. uses tfphi.interpreter for the module fallback', () => {
    const m: FakeMachine = { files: ['/venv/bin/python'], importable: [['/venv/bin/python']] };
    const r = resolveServerCommand(input({ interpreter: '/venv/bin/python' }), probes(m));
    assert.ok(r.ok);
    assert.equal(r.source, 'python-module');
    assert.equal(r.command, '/venv/bin/python');
  });

  it('the import probe is not run when an earlier step wins', () => {
    const p = probes(everything);
    resolveServerCommand(input(), p);
    assert.ok(!p.calls.some((c) => c.startsWith('canImport')));
  });
});

describe('resolveServerCommand: failures', () => {
  it('nothing installed: says what to install and how', () => {
    const r = resolveServerCommand(input(), probes({}));
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.message, /pipx install tfphi/);
    assert.match(r.message, /tfphi\.server\.command/);
    assert.equal(r.message, installAdvice('linux'));
    assert.equal(r.attempts.length, 3);
    assert.match(r.attempts[2] ?? '', /python module: the interpreter python3 was not found/);
  });

  it('python3 exists but tfphi is not importable', () => {
    const r = resolveServerCommand(input(), probes({ path: { python3: '/usr/bin/python3' } }));
    assert.ok(!r.ok);
    assert.match(r.attempts.join('\n'), /import tfphi.*failed/);
    assert.match(r.message, /pipx install tfphi/);
  });

  it('a setting that names a missing executable is reported, with no silent fallback', () => {
    const m: FakeMachine = { path: { tfphi: '/usr/local/bin/tfphi' } };
    const r = resolveServerCommand(input({ serverCommand: ['/nope/tfphi', 'serve'] }), probes(m));
    assert.ok(!r.ok);
    assert.match(r.message, /\/nope\/tfphi, which was not found/);
  });

  for (const bad of [['', 'serve'], [1, 2], 'tfphi serve', { command: 'tfphi' }]) {
    it(`a malformed setting is reported: ${JSON.stringify(bad)}`, () => {
      const r = resolveServerCommand(input({ serverCommand: bad }), probes({ path: { tfphi: '/t' } }));
      assert.ok(!r.ok);
      assert.match(r.message, /must be a non-empty array of strings/);
    });
  }

  it('an empty setting means "not set"', () => {
    for (const unset of [[], undefined, null, '']) {
      const r = resolveServerCommand(input({ serverCommand: unset }), probes({ path: { tfphi: '/t' } }));
      assert.ok(r.ok);
      assert.equal(r.source, 'path');
    }
  });

  it('a malformed interpreter is ignored with a note', () => {
    const r = resolveServerCommand(input({ interpreter: [42] }), probes({ path: { tfphi: '/t' } }));
    assert.ok(r.ok);
    assert.match(r.attempts[0] ?? '', /tfphi\.interpreter: ignored/);
  });
});

describe('resolveServerCommand: what the bundled server needs', () => {
  it('a Python older than 3.10 is not used, and the advice says which Python to install', () => {
    const m: FakeMachine = { files: [BUNDLED_INIT], path: { python3: '/usr/bin/python3' }, versions: { '/usr/bin/python3': '3.8.10' } };
    const r = resolveServerCommand(input(), probes(m));
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.attempts.join('\n'), /bundled server: present, but `\/usr\/bin\/python3` is Python 3\.8\.10 \(3\.10 or later needed\)/);
    assert.equal(
      r.message,
      'tfphi: the bundled server needs Python 3.10 or later, and `/usr/bin/python3` is Python 3.8.10. ' +
        'Install Python 3.10+ (from your package manager or python.org) so that `python3` on PATH runs it, ' +
        'or set `tfphi.interpreter` to its path, e.g. "/usr/local/bin/python3.12"; then run *tfphi: Restart Server*.',
    );
  });

  it('no Python at all: the advice names the missing interpreter', () => {
    const r = resolveServerCommand(input({ platform: 'darwin' }), probes({ files: [BUNDLED_INIT] }));
    assert.ok(!r.ok);
    assert.match(r.message, /needs Python 3\.10 or later, and `python3` was not found on PATH\. Install Python 3\.10\+ \(from python\.org or Homebrew\)/);
  });

  it('a Python that does not run is reported as such', () => {
    const m: FakeMachine = { files: [BUNDLED_INIT], path: { python3: '/usr/bin/python3' }, versions: { '/usr/bin/python3': undefined } };
    const r = resolveServerCommand(input(), probes(m));
    assert.ok(!r.ok);
    assert.match(r.message, /`\/usr\/bin\/python3` did not run/);
  });

  it('in a remote window, a server command dropped from the User settings is named, with why', () => {
    const r = resolveServerCommand(
      input({
        remoteName: 'ssh-remote',
        ignoredServerCommand: { value: ['/opt/tfphi', 'serve'], where: 'the User settings (/u/settings.json)', remoteName: 'ssh-remote' },
      }),
      probes({}),
    );
    assert.ok(!r.ok);
    assert.ok(
      r.message.endsWith(
        'Your `tfphi.server.command` (["/opt/tfphi","serve"]) in the User settings (/u/settings.json) was ignored: ' +
          'this window runs on a remote machine (ssh-remote), and the setting is machine-overridable, so VS Code ' +
          'reads it there only from the Remote settings (*Preferences: Open Remote Settings*) or the workspace ' +
          'settings. Move it there, or remove it to use the bundled server.',
      ),
      r.message,
    );
    assert.match(r.attempts.join('\n'), /tfphi\.server\.command: ignored in this remote window/);
  });

  it('in a remote window without a readable User settings file, the output still says where the setting goes', () => {
    const r = resolveServerCommand(input({ remoteName: 'wsl' }), probes({}));
    assert.ok(!r.ok);
    assert.match(r.attempts.at(-1) ?? '', /not set for this remote window \(wsl\); a value in your local User settings is not applied here/);
  });
});
