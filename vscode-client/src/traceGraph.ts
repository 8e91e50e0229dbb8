/**
 * The trace graph the server returns for `tfphi/traceGraph`, checked, and the HTML page of the
 * webview that draws it (the drawing itself is src/webview/traceGraphView.ts, run in the page).
 * Pure: no `vscode` import, so it is unit-tested without VS Code.
 */

export interface GraphNode {
  id: string;
  kind: string;
  label: string;
  location: string | null;
  branches: number[];
}

export interface GraphEdge {
  source: string;
  target: string;
  label: string | null;
  branches: number[];
}

export interface GraphBranch {
  index: number;
  value: string;
  condition: string;
  address: string;
  nodes: string[];
  color: string;
}

export interface TraceGraph {
  title: string;
  kind: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  branches: GraphBranch[];
  unbounded: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isNumberArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number');
}

/** The graph when `value` has the shape the server promises, else undefined (never throws). */
export function asTraceGraph(value: unknown): TraceGraph | undefined {
  if (!isObject(value) || typeof value.title !== 'string' || typeof value.kind !== 'string') {
    return undefined;
  }
  const { nodes, edges, branches, unbounded } = value;
  if (!Array.isArray(nodes) || !Array.isArray(edges) || !Array.isArray(branches) || !isStringArray(unbounded)) {
    return undefined;
  }
  const okNode = (n: unknown): n is GraphNode =>
    isObject(n) &&
    typeof n.id === 'string' &&
    typeof n.kind === 'string' &&
    typeof n.label === 'string' &&
    (n.location === null || typeof n.location === 'string') &&
    isNumberArray(n.branches);
  const ids = new Set(nodes.filter(okNode).map((n) => n.id));
  const okEdge = (e: unknown): e is GraphEdge =>
    isObject(e) &&
    typeof e.source === 'string' &&
    typeof e.target === 'string' &&
    ids.has(e.source) &&
    ids.has(e.target) &&
    (e.label === null || typeof e.label === 'string') &&
    isNumberArray(e.branches);
  const okBranch = (b: unknown): b is GraphBranch =>
    isObject(b) &&
    typeof b.index === 'number' &&
    typeof b.value === 'string' &&
    typeof b.condition === 'string' &&
    typeof b.address === 'string' &&
    isStringArray(b.nodes) &&
    typeof b.color === 'string' &&
    /^#[0-9a-fA-F]{6}$/.test(b.color);
  if (!nodes.every(okNode) || !edges.every(okEdge) || !branches.every(okBranch) || nodes.length === 0) {
    return undefined;
  }
  return { title: value.title, kind: value.kind, nodes, edges, branches, unbounded };
}

/** HTML-escapes text for the page. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * The webview page: a strict content security policy (only the extension's own script, a
 * nonce), the graph as JSON in a data block, and the legend of branches.
 */
export function graphPage(graph: TraceGraph, scriptUri: string, cspSource: string, nonce: string): string {
  const data = JSON.stringify(graph).replace(/</g, '\\u003c');
  const legend = graph.branches
    .map(
      (b) =>
        `<li data-branch="${b.index}"><span class="swatch" style="background:${b.color}"></span>` +
        `<code>${escapeHtml(b.value)}</code> when <code>${escapeHtml(b.condition)}</code></li>`,
    )
    .join('');
  const stops = graph.unbounded.map((r) => `<li class="unbounded">${escapeHtml(r)}</li>`).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource} data:; style-src ${cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(graph.title)}</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); background: var(--vscode-editor-background); margin: 12px; }
  h1 { font-size: 1.1em; font-weight: 600; margin: 0 0 6px; }
  ul.legend { list-style: none; padding: 0; margin: 0 0 10px; }
  ul.legend li { margin: 2px 0; cursor: default; }
  ul.legend li.unbounded { color: var(--vscode-errorForeground); }
  .swatch { display: inline-block; width: 10px; height: 10px; margin-right: 6px; border-radius: 2px; }
  code { font-family: var(--vscode-editor-font-family); }
  svg { overflow: visible; }
  svg .node rect, svg .node ellipse, svg .node polygon { stroke: var(--vscode-foreground); stroke-opacity: 0.5; }
  svg .node text { fill: #1e1e1e; font-family: var(--vscode-editor-font-family); font-size: 12px; }
  svg .node text.where { fill: #555; font-size: 10px; }
  svg .node.has-location { cursor: pointer; }
  svg .edge-label { fill: var(--vscode-foreground); font-size: 11px; }
  svg.dim .edge:not(.on), svg.dim .node:not(.on) { opacity: 0.2; }
</style>
</head>
<body>
<h1>${escapeHtml(graph.title)}</h1>
<ul class="legend">${legend}${stops}</ul>
<div id="graph"></div>
<script type="application/json" id="trace-graph">${data}</script>
<script nonce="${nonce}" src="${scriptUri}"></script>
</body>
</html>`;
}
