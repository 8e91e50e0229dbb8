import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { asTraceGraph, escapeHtml, graphPage } from '../src/traceGraph';

const GRAPH = {
  title: 'Trace graph: module.database.aws_db_instance.app.engine_version',
  kind: 'bounded',
  nodes: [
    { id: 'n0', kind: 'field', label: 'module.database.aws_db_instance.app.engine_version', location: 'modules/postgres/main.tf:4', branches: [0, 1] },
    { id: 'n1', kind: 'conditional', label: 'var.customer_env == "prod" ?', location: null, branches: [0, 1] },
    { id: 'n2', kind: 'literal', label: '"15.4"', location: 'main.tf:6', branches: [0] },
  ],
  edges: [
    { source: 'n1', target: 'n0', label: null, branches: [0, 1] },
    { source: 'n2', target: 'n1', label: 'true', branches: [0] },
  ],
  branches: [
    { index: 0, value: '"15.4"', condition: 'var.customer_env == "prod"', address: 'x', nodes: ['n0', 'n1', 'n2'], color: '#1f77b4' },
  ],
  unbounded: [],
  palette: ['#1f77b4'],
};

describe('trace graph', () => {
  it('accepts the server\'s graph', () => {
    const graph = asTraceGraph(GRAPH);
    assert.ok(graph);
    assert.equal(graph.nodes.length, 3);
    assert.equal(graph.branches[0].color, '#1f77b4');
  });

  it('refuses null, a graph without nodes, an edge to an unknown node, or a colour that is not #rrggbb', () => {
    assert.equal(asTraceGraph(null), undefined);
    assert.equal(asTraceGraph({ ...GRAPH, nodes: [], edges: [] }), undefined);
    assert.equal(asTraceGraph({ ...GRAPH, edges: [{ source: 'n9', target: 'n0', label: null, branches: [] }] }), undefined);
    const branch = { ...GRAPH.branches[0], color: 'red;background:url(x)' };
    assert.equal(asTraceGraph({ ...GRAPH, branches: [branch] }), undefined);
  });

  it('the page escapes every text from the configuration and allows only its own script', () => {
    const graph = asTraceGraph({ ...GRAPH, title: '<img src=x onerror=alert(1)>' });
    assert.ok(graph);
    const html = graphPage(graph, 'https://webview/out/traceGraphView.js', 'https://webview', 'abc123');
    assert.ok(!html.includes('<img'));
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.match(html, /script-src 'nonce-abc123';/);
    assert.match(html, /<script nonce="abc123" src="https:\/\/webview\/out\/traceGraphView.js"><\/script>/);
    // The JSON data block cannot close its script element.
    assert.ok(!/<\/script><img/.test(html));
    assert.ok(html.includes('\\u003cimg'));
    assert.match(html, /<code>&quot;15\.4&quot;<\/code> when <code>var\.customer_env == &quot;prod&quot;<\/code>/);
  });

  it('escapeHtml', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
