"""``python .../worker``: run the worker from its folder, in any interpreter with torch."""
import os
import sys
import traceback

if not __package__:  # run as a folder: the package is imported from the folder above it
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    from worker.serve import main
else:
    from .serve import main

try:
    main()
except Exception:
    traceback.print_exc()
    sys.exit(3)
