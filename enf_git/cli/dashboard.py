"""`git enf dashboard`: the stats as one self-contained HTML page (docs/dashboard.md).

It writes the page (pure/dashboard.py) from the `git enf stats --json` envelope, then
opens it (`--open`) or serves it read-only on 127.0.0.1 (`--serve`). By default the file
goes into the common git dir (`.git/enf/dashboard.html`): per-machine, never in the user's
work tree, never committed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import EnfError
from .base import CONTEXT, parse_date

PAGE_NAME = "dashboard.html"


@click.command(context_settings=CONTEXT)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the page here ('-': standard output); default .git/enf/dashboard.html.")
@click.option("--open", "open_", is_flag=True, help="Open the page in the system's web browser.")
@click.option("--serve", is_flag=True, help="Serve the page read-only on 127.0.0.1 until Ctrl-C.")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="The port for --serve (0: any free one).")
@click.option("--since", help="Only sessions on or after this date (YYYY-MM-DD, or 7d, 2w, 3m).")
@click.option("--until", help="Only sessions on or before this date.")
@click.option("--author", help="Only sessions first committed by an author matching this text.")
@click.option("--tag", "tags", multiple=True, help="Only sessions with this tag (repeatable: any of them).")
@click.option("--from", "source", type=click.Path(dir_okay=False, allow_dash=True),
              help="Draw a saved `git enf stats --json` (a file, or '-' for standard input) instead.")
def dashboard(output: str | None, open_: bool, serve: bool, port: int, since: str | None, until: str | None,
              author: str | None, tags: tuple[str, ...], source: str | None) -> None:
    """Write the analytics dashboard: one HTML file, no network, filters and themes inside."""
    from ..pure import dashboard as page

    if port and not serve:
        raise click.UsageError("--port is the port of --serve; add --serve, or drop --port")
    if output == "-" and (open_ or serve):
        raise click.UsageError("a page written to standard output cannot be opened or served; "
                               "drop -o -, or write it to a file: -o dashboard.html")
    stats = _read(source) if source else _compute(parse_date(since, "--since"), parse_date(until, "--until"),
                                                  author, tags)
    html = page.render(stats)
    if output == "-":
        sys.stdout.write(html)
        return
    target = _write(html, Path(output) if output else None)
    if serve:
        _serve(html.encode("utf-8"), port, open_)
        return
    click.echo(f"wrote the dashboard to {target}")
    if open_:
        _open(target.resolve().as_uri())


def _compute(since: str | None, until: str | None, author: str | None, tags: tuple[str, ...]) -> dict[str, Any]:
    """The stats envelope of the memory in the current folder: `git enf stats --json`'s."""
    import time

    from ..memory.record import queries
    from ..memory.context import stats as gather
    from .base import reading
    from .text import envelope

    now = int(time.time())
    found = gather.gather(reading(), queries.Filters(since=since, until=until, tags=tags, author=author), now)
    data: dict[str, Any] = json.loads(envelope("stats", generated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
                                               **found))
    return data


def _read(source: str) -> dict[str, Any]:
    """A saved envelope; refuse anything that is not one, saying what it is."""
    name = "standard input" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise EnfError(f"cannot read {source}: {exc.strerror or exc}",
                       hint="save one first: git enf stats --json > stats.json") from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise EnfError(f"{name} is not JSON ({exc})",
                       hint="save one first: git enf stats --json > stats.json") from exc
    if not isinstance(data, dict) or data.get("command") != "stats":
        raise EnfError(f"{name} is not the output of git enf stats --json",
                       hint="save one first: git enf stats --json > stats.json")
    return data


def _write(html: str, output: Path | None) -> Path:
    from ..plumbing import atomic
    from .base import workspace

    if output is None:
        from ..plumbing import store

        output = store.state_dir(workspace().repo) / PAGE_NAME
    output.parent.mkdir(parents=True, exist_ok=True)
    atomic.write(output, html.encode("utf-8"))
    return output


def _serve(page: bytes, port: int, open_: bool) -> None:
    from ..plumbing import pageserver

    try:
        httpd = pageserver.server(page, port)
    except OSError as exc:
        raise EnfError(f"cannot serve on {pageserver.HOST}:{port}: {exc.strerror or exc}",
                       hint="pick another port (--port 8765), or let one be chosen: drop --port") from exc
    url = f"http://{pageserver.HOST}:{httpd.server_address[1]}/"
    click.echo(f"serving the dashboard at {url} (read-only, this machine only; Ctrl-C stops it)", err=True)
    if open_:
        _open(url)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass  # the one way to stop it: not an error
    finally:
        httpd.server_close()


def _open(url: str) -> None:
    import webbrowser

    if not webbrowser.open(url):
        click.echo(f"note: no browser could be started here; open {url} yourself", err=True)


COMMANDS = (dashboard,)
