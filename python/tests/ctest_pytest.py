"""Runs the Python package's tests for CTest (tests/CMakeLists.txt: the
python.* tests), on the libwarplab.so the build made (WARPLAB_LIBRARY) and
the package's sources (PYTHONPATH), so nothing is compiled twice.

Exits 77 (CTest's skip) and says why when pytest or NumPy is missing (.ci/run
installs them); pytest's own exit status otherwise, "no tests ran" included
as a failure."""

import os
import sys

missing = []
for module in ("pytest", "numpy"):
    try:
        __import__(module)
    except ImportError:
        missing.append(module)
if missing:
    print(f"SKIPPED: the Python tests need {' and '.join(missing)} "
          f"(python3 -m pip install {' '.join(missing)})")
    sys.exit(77)

import pytest  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
status = pytest.main(["-q", "-p", "no:cacheprovider", "-rs", here] + sys.argv[1:])
sys.exit(1 if status == 5 else int(status))
