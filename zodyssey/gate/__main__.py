"""`python -m zodyssey.gate pre-tool|post-tool [--harness NAME]`: the hook, lean.

The same as `zodyssey hook pre-tool|post-tool`, without loading the `zodyssey`
command-line front end (argparse and friends): `zodyssey hook install` writes
this form into the harness configuration because it runs on every tool call.
"""

import sys

from zodyssey.gate.hook import main

sys.exit(main(sys.argv[1:]))
