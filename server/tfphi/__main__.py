"""``python -m tfphi``, and the ``tfphi`` command (its ``entry``)."""

import gc
import sys

# A batch command builds one large, short-lived object graph (``cli.entry``): the cyclic
# collector is off before the command's modules are imported, whose import ran it about twenty
# times for nothing (8 % of the instructions of ``import tfphi.cli``, 1.5 ms of every check).
if sys.argv[1:2] in (["check"], ["trace"], ["specialize"]):
    gc.disable()

from .cli import entry  # noqa: E402 (after the collector is off)

if __name__ == "__main__":
    entry()
