"""Our redaction against Yelp's detect-secrets, on the corpus of tests/data/redact/.

Reports, for each detector: leaks (fake secrets still readable after redaction, out
of the secret cases), altered benign lines (out of the benign corpus), the wall time
of one pass over both corpora, and the cold import cost of the module the commit
path would load (`python -X importtime`, median of runs). Also the per-call cost of
`redact()` on a 200-character tool summary, the hook path's unit of work.

detect-secrets is not a dependency: without it, its rows are skipped. It redacts by
masking every `secret_value` its plugins report (all plugins, default filters),
line by line, as a commit-path integration would.

    python bench/redact_compare.py [--module PATH] [--before PATH]
    # --module: another redact.py to measure as "ours"; --before: per-call ratio to an older one
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
MASK = "[REDACTED]"
SUMMARY = ("cd /home/dev/projects/acme-api && PYTHONPATH=src python -m pytest -q tests/test_tokens.py "
           "-k 'refresh and not slow' --maxfail=1 2>&1 | tail -20 # check the token refresh after the "
           "fix in 3f9a8b7, see ADR-0012")[:200]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _detect_secrets(whole_lines: bool) -> Callable[[str], str] | None:
    """Redaction through detect-secrets: mask each reported `secret_value`, or (the
    charitable reading, since some plugins report a regex group such as `ghp` rather
    than the token) mask every line that has a finding."""
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def redact(text: str) -> str:
        # The file-scan path (plugins + default filters) on an in-memory markdown file;
        # `scan_line` is the ad-hoc mode that reports every candidate, even low-entropy words.
        lines = text.split("\n")
        with default_settings():
            found = list(_process_line_based_plugins(lines=list(enumerate(lines, 1)), filename="session.md"))
        for secret in found:
            i = secret.line_number - 1
            if whole_lines:
                lines[i] = MASK
            elif secret.secret_value:
                lines[i] = lines[i].replace(secret.secret_value, MASK)
        return "\n".join(lines)
    return redact


def measure(redact: Callable[[str], str], fakes: ModuleType) -> tuple[int, int, int, int, float]:
    cases, benign = fakes.secret_cases(), fakes.benign_lines()
    start = time.perf_counter()
    leaks = sum(1 for _, text, secrets in cases if fakes.leaks(text, redact(text), secrets))
    altered = sum(1 for line in benign if redact(line) != line)
    return leaks, len(cases), altered, len(benign), time.perf_counter() - start


# Bytecode is cached as an installed package's would be (PYTHONDONTWRITEBYTECODE would
# make every run compile), under a temp prefix so the repository is not written to.
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="redact-pycache-")


def _top_imports(statement: str) -> dict[str, int]:
    """Cumulative microseconds of each top-level import (-X importtime indents nested ones)."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", statement], cwd=ROOT, env=_ENV,
                         capture_output=True, text=True, check=True).stderr
    cols = [ln.split("|") for ln in err.splitlines() if ln.startswith("import time:") and "[us]" not in ln]
    return {c[2].strip(): int(c[1]) for c in cols if not c[2].startswith("  ")}


def import_ms(statement: str, reps: int = 7) -> float:
    """Median cost of the imports the statement adds to a bare interpreter start (ms)."""
    startup = set(_top_imports("pass"))
    _top_imports(statement)  # warm the bytecode cache
    runs = [sum(us for name, us in _top_imports(statement).items() if name not in startup) / 1000
            for _ in range(reps)]
    return statistics.median(runs)


def per_call_us(redact: Callable[[str], str], reps: int = 20000) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        redact(SUMMARY)
    return (time.perf_counter() - start) / reps * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", type=Path, default=ROOT / "enf_git" / "redact.py")
    parser.add_argument("--before", type=Path, help="an earlier redact.py: report the per-call ratio to it")
    args = parser.parse_args()
    fakes = _load(ROOT / "tests" / "data" / "redact" / "fakes.py", "redact_fakes")
    ours = _load(args.module, "ours_redact")
    leaf = f"import sys; sys.path.insert(0, {str(args.module.parent)!r}); import {args.module.stem}"
    rows: list[tuple[str, Callable[[str], str], str]] = [("ours", ours.redact, leaf)]
    for label, whole in (("detect-secrets", False), ("d-s whole lines", True)):
        theirs = _detect_secrets(whole)
        if theirs is None:
            print("detect-secrets not installed: its rows are skipped")
            break
        rows.append((label, theirs, "import detect_secrets.core.scan, detect_secrets.settings"))
    print(f"{'detector':<16}{'leaks':>12}{'benign altered':>18}{'scan s':>9}{'import ms':>11}{'per call us':>13}")
    for name, redact, stmt in rows:
        leaks, cases, altered, benign, secs = measure(redact, fakes)
        cost = import_ms(stmt)
        print(f"{name:<16}{leaks:>5}/{cases:<6}{altered:>9}/{benign:<8}{secs:>9.3f}{cost:>11.1f}"
              f"{per_call_us(redact, 20000 if name == 'ours' else 200):>13.1f}")
    if args.before:
        before = _load(args.before, "before_redact")
        ratios = [per_call_us(ours.redact, 5000) / per_call_us(before.redact, 5000) for _ in range(9)]
        print(f"per-call ratio to {args.before}: {statistics.median(ratios):.2f} (median of 9 interleaved pairs)")
    print("(import ms: -X importtime, cumulative time of the imports a bare start lacks, median of 7;"
          " per call: redact() on a 200-char tool summary)")


if __name__ == "__main__":
    main()
