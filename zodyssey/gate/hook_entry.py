"""The hook as a script: `PYTHON -P .../zodyssey/gate/hook_entry.py pre-tool|post-tool`.

`zodyssey hook install` writes this form because the harness starts it on
every tool call: running a file skips `runpy` (which `python -m` imports,
with `importlib.util`, `contextlib`, `functools`, `collections`: about 3 ms),
and `-P` keeps this file's directory off `sys.path`, so `zodyssey` is
imported from where the interpreter installed it, as with `-m`. Same
behaviour as `python -m zodyssey.gate` and `zodyssey hook`.
"""

import sys

from zodyssey.gate.hook import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
