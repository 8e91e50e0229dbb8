"""A root module's text of many module calls, as the memory tests read it (one builder for the
tests of the broken file's pieces and of its findings)."""

from __future__ import annotations


def module_calls(calls: int, peer: bool) -> list[str]:
    """``calls`` module blocks, each reading a variable and a local; with ``peer`` each also
    reads the next call's output (references the findings resolve)."""
    blocks = []
    for i in range(calls):
        peer_line = f"  peer   = module.svc_{(i + 1) % calls:03}.id\n" if peer else ""
        blocks.append(f'module "svc_{i:03}" {{\n  source = "./modules/svc_{i:03}"\n  region = var.region\n'
                      f'  tags   = merge(local.tags, {{ name = "svc_{i:03}" }})\n{peer_line}}}\n')
    return blocks
