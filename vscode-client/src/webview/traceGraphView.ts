/**
 * Runs inside the trace graph webview: lays the graph out with dagre (left to right, the field
 * on the right, as the data flows) and draws it as SVG, each edge once per branch that takes it,
 * in that branch's colour. Hovering a branch in the legend highlights its path; clicking a node
 * with a location opens it in the editor.
 */
import { graphlib, layout } from '@dagrejs/dagre';
import type { TraceGraph } from '../traceGraph';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const SVG = 'http://www.w3.org/2000/svg';
const FILL: Record<string, string> = {
  field: '#c8e6c9',
  variable: '#e3f2fd',
  local: '#e3f2fd',
  module_argument: '#fff3e0',
  module_output: '#fff3e0',
  default: '#f3e5f5',
  validation: '#f3e5f5',
  universe: '#f3e5f5',
  type: '#f3e5f5',
  conditional: '#fffde7',
  literal: '#ffffff',
  unbounded: '#ffcdd2',
};
interface Point {
  x: number;
  y: number;
}
interface Box extends Point {
  width: number;
  height: number;
}
interface EdgeAt {
  x?: number;
  y?: number;
  points?: Point[];
}

const CHAR_WIDTH = 7.2;
const LINE_HEIGHT = 15;

function element<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) {
    el.setAttribute(key, String(value));
  }
  return el;
}

function draw(graph: TraceGraph, vscode: VsCodeApi): void {
  const g = new graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of graph.nodes) {
    const lines = node.label.split('\n');
    const width = Math.max(...lines.map((l) => l.length), node.location ? node.location.length * 0.85 : 0) * CHAR_WIDTH + 24;
    const height = (lines.length + (node.location ? 1 : 0)) * LINE_HEIGHT + 14;
    g.setNode(node.id, { width: node.kind === 'conditional' ? width + 30 : width, height: node.kind === 'conditional' ? height + 16 : height });
  }
  graph.edges.forEach((edge, i) => {
    g.setEdge(edge.source, edge.target, { label: edge.label ?? '', width: edge.label ? edge.label.length * 7 : 0, height: edge.label ? 14 : 0 }, `e${i}`);
  });
  layout(g);

  const size = g.graph() as { width?: number; height?: number };
  // Scaled down to the view's width when wider (never up): the whole graph is in sight.
  const width = (size.width ?? 400) + 16;
  const height = (size.height ?? 300) + 16;
  const svg = element('svg', { viewBox: `0 0 ${width} ${height}`, width: '100%', role: 'img' });
  svg.style.maxWidth = `${width}px`;
  svg.setAttribute('aria-label', graph.title);
  const defs = element('defs', {});
  svg.appendChild(defs);
  const colors = new Map(graph.branches.map((b) => [b.index, b.color]));

  graph.edges.forEach((edge, i) => {
    const at = g.edge({ v: edge.source, w: edge.target, name: `e${i}` }) as EdgeAt;
    const points = at.points ?? [];
    const branches = edge.branches.length > 0 ? edge.branches : [-1];
    branches.forEach((branch, k) => {
      const offset = (k - (branches.length - 1) / 2) * 3;
      const d = points.map((p, j) => `${j === 0 ? 'M' : 'L'}${p.x},${p.y + offset}`).join(' ');
      const color = colors.get(branch) ?? '#9e9e9e';
      const marker = `arrow-${branch}`;
      if (!defs.querySelector(`#${marker}`)) {
        const m = element('marker', { id: marker, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' });
        m.appendChild(element('path', { d: 'M0,0 L10,5 L0,10 z', fill: color }));
        defs.appendChild(m);
      }
      const path = element('path', { d, fill: 'none', stroke: color, 'stroke-width': 2, 'marker-end': `url(#${marker})` });
      path.classList.add('edge');
      path.dataset.branches = String(branch);
      if (edge.branches.length === 0) {
        path.setAttribute('stroke-dasharray', '4 3');
      }
      svg.appendChild(path);
    });
    if (edge.label) {
      const text = element('text', { x: at.x ?? 0, y: (at.y ?? 0) - 4, 'text-anchor': 'middle' });
      text.classList.add('edge-label');
      text.textContent = edge.label;
      svg.appendChild(text);
    }
  });

  for (const node of graph.nodes) {
    const box = g.node(node.id) as Box;
    const group = element('g', { transform: `translate(${box.x - box.width / 2},${box.y - box.height / 2})` });
    group.classList.add('node', `kind-${node.kind}`);
    group.dataset.branches = node.branches.join(' ');
    group.dataset.id = node.id;
    const fill = FILL[node.kind] ?? '#eceff1';
    if (node.kind === 'conditional') {
      const w = box.width;
      const h = box.height;
      group.appendChild(element('polygon', { points: `${w / 2},0 ${w},${h / 2} ${w / 2},${h} 0,${h / 2}`, fill }));
    } else if (node.kind === 'function' || node.kind === 'operator') {
      group.appendChild(element('ellipse', { cx: box.width / 2, cy: box.height / 2, rx: box.width / 2, ry: box.height / 2, fill }));
    } else {
      group.appendChild(element('rect', { width: box.width, height: box.height, rx: 6, fill, 'stroke-width': node.kind === 'field' ? 2.5 : 1 }));
    }
    const lines = node.label.split('\n');
    const total = lines.length + (node.location ? 1 : 0);
    const top = box.height / 2 - ((total - 1) * LINE_HEIGHT) / 2 + 4;
    lines.forEach((line, k) => {
      const text = element('text', { x: box.width / 2, y: top + k * LINE_HEIGHT, 'text-anchor': 'middle' });
      text.textContent = line;
      group.appendChild(text);
    });
    if (node.location) {
      const where = element('text', { x: box.width / 2, y: top + lines.length * LINE_HEIGHT, 'text-anchor': 'middle' });
      where.classList.add('where');
      where.textContent = node.location;
      group.appendChild(where);
      group.classList.add('has-location');
      const location = node.location;
      group.addEventListener('click', () => {
        vscode.postMessage({ type: 'open', location });
      });
    }
    const title = element('title', {});
    title.textContent = `${node.kind.replace('_', ' ')}: ${node.label.replace('\n', ' ')}${node.location ? ` (${node.location})` : ''}`;
    group.appendChild(title);
    svg.appendChild(group);
  }

  // The legend highlights one branch's path while the pointer is on it.
  for (const item of Array.from(document.querySelectorAll<HTMLElement>('ul.legend li[data-branch]'))) {
    const branch = item.dataset.branch ?? '';
    item.addEventListener('mouseenter', () => {
      svg.classList.add('dim');
      for (const el of Array.from(svg.querySelectorAll<SVGElement>('.edge, .node'))) {
        el.classList.toggle('on', (el.dataset.branches ?? '').split(' ').includes(branch));
      }
    });
    item.addEventListener('mouseleave', () => {
      svg.classList.remove('dim');
    });
  }
  document.getElementById('graph')?.appendChild(svg);
}

const data = document.getElementById('trace-graph')?.textContent ?? 'null';
draw(JSON.parse(data) as TraceGraph, acquireVsCodeApi());
