#!/usr/bin/env python3
"""Checkov's variable rendering of one Terraform directory, for bench/run.py's comparison.

    <python that has checkov> bench/checkov_render.py DIR

Builds Checkov's Terraform graph with variables rendered (what its checks read), local
modules followed, nothing downloaded, and prints the rendered `engine` of every
`aws_db_instance` as JSON with Checkov's version. Run as a child process so its start-up
and imports count, as tfphi's do.
"""
from __future__ import annotations

import json
import logging
import sys


def main() -> int:
    logging.disable(logging.CRITICAL)
    from checkov.common.graph.db_connectors.networkx.networkx_db_connector import NetworkxConnector
    from checkov.terraform.graph_manager import TerraformGraphManager
    from checkov.version import version

    manager = TerraformGraphManager(db_connector=NetworkxConnector())
    graph, _ = manager.build_graph_from_source_directory(sys.argv[1], render_variables=True,
                                                         download_external_modules=False)
    engines = {}
    for vertex in graph.vertices:
        if vertex.block_type == "resource" and vertex.name.startswith("aws_db_instance."):
            engines[f"{vertex.path}:{vertex.name}"] = vertex.attributes.get("engine")
    print(json.dumps({"version": version, "engine": engines}, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
