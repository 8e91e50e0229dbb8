"""The tfphi language server: the only package that imports pygls and lsprotocol.

Layout (each module has one job):

- ``main.py``       the server put together (handlers registered), ``run_server``
- ``server.py``     the pygls server and protocol, capabilities, settings
- ``transport.py``  stdio framing that survives bad input
- ``handlers/``     one thin handler per LSP method: params -> features -> LSP result
- ``documents.py``  the document store: text, version, line index, encoding, tree (edited with ``Tree.edit``)
- ``workspace.py``  one ``AnalysisHost`` per workspace folder, fed from disk and from open documents
- ``scheduler.py``  when analysis runs: no debounce, coalesced changes, stale passes dropped, indexing with progress
- ``publish.py``    diagnostics: converted, compared with the last list sent, published when changed
- ``convert.py``    byte spans <-> LSP ranges in the negotiated encoding (the only position arithmetic)
- ``guard.py``      every handler's exception becomes a log message and null, never a dead server

Invariants: the analysis never sees LSP types or does I/O; only ``workspace.py`` reads
files; nothing here writes files, runs processes or touches the network; an open
document's text wins over the disk; every change is applied to the store synchronously
in its notification, in order, before any analysis of it.
"""
