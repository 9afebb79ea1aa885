"""`python -m tokenforge.cli`: the `tokenforge` command, as `main()` in __init__.py runs it."""

import sys

from . import main

sys.exit(main())
