import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { type ServerState, statusPresentation } from '../src/status';

describe('statusPresentation', () => {
  it('has a distinct text and tooltip for each state', () => {
    const states: ServerState[] = ['starting', 'running', 'stopped', 'error'];
    const texts = states.map((s) => statusPresentation(s).text);
    assert.equal(new Set(texts).size, 4);
    for (const s of states) {
      assert.match(statusPresentation(s).tooltip, new RegExp(s === 'error' ? 'error' : s));
    }
  });

  it('errors are highlighted and carry the detail', () => {
    const p = statusPresentation('error', 'no server found');
    assert.equal(p.background, 'statusBarItem.errorBackground');
    assert.match(p.tooltip, /no server found/);
    assert.equal(statusPresentation('running').background, undefined);
  });
});
