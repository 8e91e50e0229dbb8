import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { DEFAULT_BACKOFF, RestartBackoff } from '../src/backoff';

describe('RestartBackoff', () => {
  it('doubles the delay after each crash, up to the cap', () => {
    const b = new RestartBackoff({ initialDelayMs: 1000, maxDelayMs: 5000, maxCrashes: 10, windowMs: 60_000 });
    const delays = [0, 1, 2, 3, 4].map((i) => b.onCrash(i * 100));
    assert.deepEqual(delays, [1000, 2000, 4000, 5000, 5000]);
  });

  it('gives up after too many crashes within the window', () => {
    const b = new RestartBackoff(DEFAULT_BACKOFF);
    for (let i = 0; i < DEFAULT_BACKOFF.maxCrashes; i++) {
      assert.notEqual(b.onCrash(i * 1000), undefined);
    }
    assert.equal(b.onCrash(10_000), undefined);
  });

  it('forgets crashes older than the window', () => {
    const b = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 10_000, maxCrashes: 2, windowMs: 1000 });
    assert.equal(b.onCrash(0), 100);
    assert.equal(b.onCrash(500), 200);
    assert.equal(b.onCrash(5000), 100);
    assert.equal(b.recentCrashes, 1);
  });

  it('reset starts over', () => {
    const b = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 10_000, maxCrashes: 1, windowMs: 1000 });
    assert.equal(b.onCrash(0), 100);
    assert.equal(b.onCrash(1), undefined);
    b.reset();
    assert.equal(b.onCrash(2), 100);
  });
});
