import sys

from zodyssey.cli import main

sys.exit(main())
