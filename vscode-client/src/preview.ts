/**
 * Pure mapping from the server's answers to `tfphi.showTrace` and
 * `tfphi.previewSpecialization` into read-only preview documents.
 * No `vscode` import: the extension turns a {@link PreviewDocument} into a
 * `tfphi-preview:` URI and opens it.
 */

export const PREVIEW_SCHEME = 'tfphi-preview';
export const SHOW_TRACE = 'tfphi.showTrace';
export const PREVIEW_SPECIALIZATION = 'tfphi.previewSpecialization';

export interface CursorLocation {
  uri: string;
  line: number;
  character: number;
}

export interface CommandTarget {
  uri: string;
  position?: { line: number; character: number };
  address?: string;
}

export interface PreviewDocument {
  /** `markdown` for a trace, `terraform` for a specialization. */
  languageId: 'markdown' | 'terraform';
  /** File name used in the URI path: `<title>.md` or `<title>.tf`. */
  fileName: string;
  /** Full document text. */
  content: string;
}

export type PreviewOutcome =
  | { kind: 'document'; document: PreviewDocument }
  | { kind: 'empty'; message: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Is this command one whose result the client shows as a preview? */
export function isPreviewCommand(command: string): boolean {
  return command === SHOW_TRACE || command === PREVIEW_SPECIALIZATION;
}

/**
 * Arguments to send to the server. From the palette (no arguments) they are
 * filled from the cursor; arguments given by a code lens pass through
 * unchanged. Returns undefined when there are no arguments and no cursor.
 */
export function fillCommandArgs(args: readonly unknown[], cursor: CursorLocation | undefined): unknown[] | undefined {
  if (args.length > 0) {
    return [...args];
  }
  if (cursor === undefined) {
    return undefined;
  }
  const target: CommandTarget = {
    uri: cursor.uri,
    position: { line: cursor.line, character: cursor.character },
  };
  return [target];
}

/** Turns a title into a safe single path segment (no slashes, no control characters). */
export function safeFileStem(title: string, fallback: string): string {
  const cleaned = title
    .replace(/[\\/:*?"<>|#%\p{Cc}]+/gu, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 120)
    .trim();
  return cleaned.length > 0 ? cleaned : fallback;
}

/** Provenance records as a trailing `#` comment block (valid HCL). */
export function provenanceComment(provenance: readonly unknown[]): string {
  if (provenance.length === 0) {
    return '';
  }
  const json = JSON.stringify(provenance, null, 2);
  const lines = json.split('\n').map((line) => (line.length > 0 ? `# ${line}` : '#'));
  return ['# --- tfphi provenance (JSON) ---', ...lines, '# --- end of provenance ---'].join('\n') + '\n';
}

/** The information message when the server returns nothing. */
export function emptyMessage(command: string): string {
  return command === PREVIEW_SPECIALIZATION
    ? 'tfphi: no specialization is available at the cursor.'
    : 'tfphi: no trace is available at the cursor.';
}

/** `{title, markdown}` → a markdown preview. */
export function buildTraceDocument(result: unknown): PreviewDocument | undefined {
  if (!isPlainObject(result) || typeof result.markdown !== 'string') {
    return undefined;
  }
  const title = typeof result.title === 'string' ? result.title : '';
  const stem = safeFileStem(title, 'tfphi trace');
  const body = result.markdown.endsWith('\n') ? result.markdown : `${result.markdown}\n`;
  return { languageId: 'markdown', fileName: `${stem}.md`, content: body };
}

/** `{title, hcl, provenance}` → a terraform preview with the provenance appended as comments. */
export function buildSpecializationDocument(result: unknown): PreviewDocument | undefined {
  if (!isPlainObject(result) || typeof result.hcl !== 'string') {
    return undefined;
  }
  const title = typeof result.title === 'string' ? result.title : '';
  const stem = safeFileStem(title, 'tfphi specialization');
  const provenance = Array.isArray(result.provenance) ? result.provenance : [];
  let content = result.hcl.endsWith('\n') || result.hcl.length === 0 ? result.hcl : `${result.hcl}\n`;
  const comment = provenanceComment(provenance);
  if (comment.length > 0) {
    content = content.length > 0 ? `${content}\n${comment}` : comment;
  }
  return { languageId: 'terraform', fileName: `${stem}.tf`, content };
}

/** Maps a server answer for one of the two preview commands to what the client shows. */
export function buildPreview(command: string, result: unknown): PreviewOutcome {
  const document =
    command === PREVIEW_SPECIALIZATION ? buildSpecializationDocument(result) : buildTraceDocument(result);
  return document === undefined ? { kind: 'empty', message: emptyMessage(command) } : { kind: 'document', document };
}
