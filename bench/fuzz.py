"""The long fuzz run: the hardening suites of the tests with many more examples each.

    python bench/fuzz.py                    # 2,000 examples per fuzz test (~5 min on 2 cores)
    python bench/fuzz.py --examples 200     # a quicker look
    python bench/fuzz.py --examples 20000 -k gguf   # one format, hard

The default test run (CI) takes a few dozen examples per test (tests/conftest.py FUZZ_EXAMPLES);
this sets TOKENFORGE_FUZZ_EXAMPLES and runs the same tests: mutated files of every format
(tests/test_fuzz_formats.py, tests/test_corrupt_files.py), hostile settings and arguments
(tests/test_fuzz_settings.py), and the native crash cases (tests/test_native_hardening.py).
Every case that could crash runs in a child process, so a crash is a failed test with its input,
not a dead run. Exit status: pytest's.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
SUITES = ["test_fuzz_formats.py", "test_fuzz_settings.py", "test_corrupt_files.py", "test_native_hardening.py"]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__
    )
    parser.add_argument("--examples", type=int, default=2000, help="hypothesis examples per fuzz test")
    parser.add_argument("-k", dest="keyword", help="only tests matching this pytest -k expression")
    args = parser.parse_args()
    if args.examples < 1:
        parser.error("--examples must be >= 1")
    env = {**os.environ, "TOKENFORGE_FUZZ_EXAMPLES": str(args.examples)}
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *(str(ROOT / "tests" / s) for s in SUITES),
    ]
    if args.keyword:
        command += ["-k", args.keyword]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
