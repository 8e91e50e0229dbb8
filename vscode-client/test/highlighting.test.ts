import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { highlightingSetting, semanticTokensEnabled } from '../src/highlighting';

describe('semantic highlighting', () => {
  it('auto: on alone, off next to HashiCorp\'s Terraform extension', () => {
    assert.equal(semanticTokensEnabled('auto', false), true);
    assert.equal(semanticTokensEnabled('auto', true), false);
  });

  it('on and off are obeyed whatever else is installed', () => {
    assert.equal(semanticTokensEnabled('on', true), true);
    assert.equal(semanticTokensEnabled('off', false), false);
  });

  it('unknown values count as auto', () => {
    assert.equal(highlightingSetting(undefined), 'auto');
    assert.equal(highlightingSetting('yes'), 'auto');
    assert.equal(highlightingSetting('off'), 'off');
  });
});
