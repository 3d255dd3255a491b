"""``python -m svtgui.cli``: the same as ``svtgui-cli``."""

import sys

from svtgui.cli import main

sys.exit(main())
