/**
 * Whether tfphi's semantic tokens colour Terraform files.
 *
 * tfphi's server classifies every token (tree-sitter parses the whole file), so a user with no
 * other Terraform extension gets coloured HCL. HashiCorp's Terraform extension
 * (`hashicorp.terraform`) brings its own TextMate grammar and semantic tokens; when it is
 * installed, tfphi stays out of its way by default so that one extension decides the colours.
 */

export type HighlightingSetting = 'auto' | 'on' | 'off';

export const HASHICORP_TERRAFORM = 'hashicorp.terraform';

/** Reads the `tfphi.semanticHighlighting` setting; anything unknown counts as `auto`. */
export function highlightingSetting(value: unknown): HighlightingSetting {
  return value === 'on' || value === 'off' ? value : 'auto';
}

/** True when tfphi's semantic tokens should be given to the editor. */
export function semanticTokensEnabled(setting: HighlightingSetting, hashicorpInstalled: boolean): boolean {
  if (setting === 'auto') {
    return !hashicorpInstalled;
  }
  return setting === 'on';
}
