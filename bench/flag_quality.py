"""How often ordinary notes are flagged as instructions to the assistant (pure/suspicious.py).

Prints, per corpus, the share of lines and of session files `suspicious.flags` flags:

  attacks       tests/data/injection/attacks.txt: every line must be flagged (detection)
  hard benign   tests/data/injection/benign_hard.txt: notes close to a rule, none flagged
  recall notes  bench/recall/sessions and conversations/sessions: hand-written realistic
                session files (goal: at most 1 % of files flagged)
  fixtures      the 10,000 session files bench/common.py seeds the 10k benchmarks with
  code & notes  tests/data/redact/benign.txt: ordinary code and notes, per line
  project docs  README.md, CHANGELOG.md, docs/, the skill: text about enf-git itself, as
                notes of a team that works on enf-git would quote it, per line

No timing: this is a quality measure. --verbose lists every flagged benign line.

Run: .venv/bin/python bench/flag_quality.py [--verbose]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import common

common.use_checkout()
from enf_git.pure import suspicious  # noqa: E402 - after use_checkout: this checkout's enf_git

ROOT = common.CHECKOUT
DATA = ROOT / "tests" / "data" / "injection"
GOAL = 1.0  # percent of session files


def cases(path: Path) -> list[str]:
    """A corpus file's cases, as tests/test_suspicious.py reads them."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("# ") or line == "#":
            continue
        line = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), line)
        out.append(line.replace("\\n", "\n"))
    return out


def recall_notes() -> dict[str, str]:
    out = {}
    for folder in (ROOT / "bench" / "recall" / "sessions", ROOT / "bench" / "recall" / "conversations" / "sessions"):
        out.update({str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md"))})
    return out


def fixtures(n: int = 10000) -> dict[str, str]:
    rare = common.rare_indices(n)
    return {f"fixture {i}": common.session_text(i, n, rare) for i in range(n)}


def files_report(label: str, files: dict[str, str], verbose: bool) -> float:
    """Print the file and line rates of a corpus of session files; returns the file rate (%)."""
    lines = sum(text.count("\n") + 1 for text in files.values())
    found = {name: suspicious.flags(text) for name, text in files.items()}
    found = {name: flags for name, flags in found.items() if flags}
    flagged_lines = sum(len(flags) for flags in found.values())
    rate = 100 * len(found) / max(len(files), 1)
    print(f"{label:13} files {len(found)}/{len(files)} flagged ({rate:.2f} %), "
          f"lines {flagged_lines}/{lines} ({100 * flagged_lines / max(lines, 1):.3f} %)")
    if verbose:
        for name, flags in found.items():
            for f in flags:
                print(f"    {name}:{f.line}: {', '.join(f.reasons)}: {suspicious.shown(f.text)}")
    return rate


def lines_report(label: str, lines: list[str], verbose: bool, want: bool) -> int:
    """Print how many of `lines` are flagged; returns how many went the wrong way."""
    flagged = [line for line in lines if suspicious.reasons(line)]
    print(f"{label:13} lines {len(flagged)}/{len(lines)} flagged ({100 * len(flagged) / max(len(lines), 1):.2f} %)")
    wrong = [line for line in lines if bool(suspicious.reasons(line)) != want]
    if verbose or want:
        for line in wrong:
            print(f"    {'missed' if want else 'flagged'}: {suspicious.shown(line)}")
    return len(wrong)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verbose", action="store_true", help="list every flagged benign line")
    args = ap.parse_args()
    print(f"== flag_quality (rules version {suspicious.RULES_VERSION})")
    missed = lines_report("attacks", cases(DATA / "attacks.txt"), args.verbose, want=True)
    hard = lines_report("hard benign", cases(DATA / "benign_hard.txt"), args.verbose, want=False)
    rate = files_report("recall notes", recall_notes(), args.verbose)
    files_report("fixtures", fixtures(), args.verbose)
    benign = [line for line in (ROOT / "tests" / "data" / "redact" / "benign.txt").read_text(encoding="utf-8")
              .splitlines() if line.strip()]
    lines_report("code & notes", benign, args.verbose, want=False)
    docs = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted((ROOT / "enf_git" / "skill").rglob("*.md"))]
    lines_report("project docs", [line for p in docs for line in p.read_text(encoding="utf-8").splitlines()
                                  if line.strip()], args.verbose, want=False)
    met = rate <= GOAL and not missed and not hard
    print(f"RESULT false positives on recall notes {rate:.2f} % of files (goal <= {GOAL:.0f} %), "
          f"{missed} attacks missed: {'MET' if met else 'NOT MET'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
