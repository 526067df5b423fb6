"""The rules for the rarer programs the shell classifier knows (curl, docker, kubectl, the
package tools, systemctl, openssl…): shellclass.py loads this module the first time a
command names one of them, so the common case (git, coreutils, sed, find, the shells)
pays for none of it on the per-call hook's path. Same contract as shellclass: a verdict
from the text alone; what a rule cannot tell is never read-only.
"""

from __future__ import annotations

from .shellclass import Verdict, _Ctx, _HARMLESS_TARGETS, _after_options, _classify, _judge_words, _positionals, _short_flags

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .shellclass import _Handler


def _subcommand(reads: set[str], writes: set[str], what: str) -> _Handler:
    """A package tool judged by its first positional: reads, writes, or (otherwise) unknown."""

    def judge(args: list[str], ctx: _Ctx) -> Verdict:
        if args in (["--version"], ["-v"], ["-V"], ["version"], ["--help"], ["help"], []):
            return ctx.read()
        pos = _positionals(args)
        sub = pos[0] if pos else ""
        if sub in reads:
            return ctx.read()
        if sub in writes:
            return ctx.write(what)
        return ctx.unknown(f"`{ctx.segment}` runs a subcommand this classifier does not know")

    return judge


_PIP_READ = {"list", "show", "freeze", "check", "help", "search", "index", "inspect", "debug", "config-list"}
_PIP_WRITE = {"install", "uninstall", "download", "wheel", "cache", "config"}


def _curl(args: list[str], ctx: _Ctx) -> Verdict:
    writes = ("-o", "-O", "--output", "--remote-name", "-T", "--upload-file", "-d", "--data", "-F",
              "--form", "--remote-name-all", "-c", "--cookie-jar", "-D", "--dump-header", "--json")
    for i, arg in enumerate(args):
        if arg.startswith(writes) and not arg.startswith(("--data-urlencode-no",)):
            if arg in ("-o", "--output", "-D", "--dump-header") and args[i + 1:i + 2] and args[i + 1] in _HARMLESS_TARGETS:
                continue
            return ctx.write("writes a file or sends data (curl)")
        if arg.startswith("-") and not arg.startswith("--") and ("o" in arg or "O" in arg):
            if i + 1 < len(args) and args[i + 1] in _HARMLESS_TARGETS and arg.endswith("o"):
                continue
            return ctx.write("writes a file (curl -o)")
        if arg in ("-X", "--request") and i + 1 < len(args) and args[i + 1].upper() not in ("GET", "HEAD"):
            return ctx.write(f"sends a {args[i + 1]} request (curl)")
    return ctx.read()


def _wget(args: list[str], ctx: _Ctx) -> Verdict:
    for i, arg in enumerate(args):
        if arg.endswith("O-") or (arg.endswith("O") and args[i + 1:i + 2] == ["-"]) or arg == "--output-document=-":
            return ctx.read()
        if arg in ("--spider", "--version", "--help"):
            return ctx.read()
    return ctx.write("downloads files (wget)")


def _tar(args: list[str], ctx: _Ctx) -> Verdict:
    first = args[0] if args else ""
    flags = first.lstrip("-") if not first.startswith("--") else ""
    flags += _short_flags(args[1:])
    if any(a in ("--extract", "--create", "--append", "--update", "--delete", "--get") for a in args) or any(
            c in flags for c in "xcruA"):
        return ctx.write("writes files (tar)")
    if "t" in flags or "--list" in args or args in (["--version"], ["--help"]):
        return ctx.read()
    return ctx.unknown(f"`{ctx.segment}` runs tar in a mode this classifier does not know")


def _unzip(args: list[str], ctx: _Ctx) -> Verdict:
    return ctx.read() if any(c in _short_flags(args) for c in "lvtZp") else ctx.write("extracts files (unzip)")


def _date(args: list[str], ctx: _Ctx) -> Verdict:
    if any(a in ("-s", "--set") or a.startswith("--set=") for a in args):
        return ctx.write("sets the clock")
    return ctx.read()


def _hostname(args: list[str], ctx: _Ctx) -> Verdict:
    return ctx.write("renames the host") if _positionals(args) else ctx.read()


def _eval(args: list[str], ctx: _Ctx) -> Verdict:
    return _classify(" ".join(args), ctx.depth + 1)


def _mktemp(args: list[str], ctx: _Ctx) -> Verdict:
    return ctx.read() if "-u" in args or "--dry-run" in args else ctx.write("creates a temporary file")


def _docker(args: list[str], ctx: _Ctx) -> Verdict:
    reads = {"ps", "images", "inspect", "logs", "version", "info", "history", "search", "stats", "top", "diff",
             "port"}
    pos = _positionals(args)
    sub = pos[0] if pos else ""
    if sub in ("compose", "container", "image", "volume", "network") and len(pos) > 1:
        sub = {"ls": "ps", "list": "ps"}.get(pos[1], pos[1])
    if not pos or sub in reads or args in (["--version"], ["-v"]):
        return ctx.read()
    return ctx.write(f"changes containers or images (docker {sub})")


def _kubectl(args: list[str], ctx: _Ctx) -> Verdict:
    reads = {"get", "describe", "logs", "version", "explain", "top", "api-resources", "api-versions",
             "cluster-info", "diff", "auth"}
    pos = _positionals(args)
    if not pos or pos[0] in reads or pos[:2] in (["config", "view"], ["config", "get-contexts"],
                                                 ["config", "current-context"], ["rollout", "status"],
                                                 ["rollout", "history"]):
        return ctx.read()
    return ctx.write(f"changes the cluster (kubectl {pos[0]})")


def _gh(args: list[str], ctx: _Ctx) -> Verdict:
    pos = _positionals(args)
    if not pos or pos[0] in ("status", "version", "help", "search", "browse") or (
            len(pos) > 1 and pos[1] in ("view", "list", "status", "diff", "checks", "watch")):
        return ctx.read()
    if pos[0] == "api" and not any(a in ("-X", "--method", "-f", "-F", "--field", "--raw-field", "--input")
                                   for a in args):
        return ctx.read()
    if pos[:2] == ["auth", "status"]:
        return ctx.read()
    return ctx.write(f"changes GitHub state (gh {' '.join(pos[:2])})")



def _history(args: list[str], ctx: _Ctx) -> Verdict:
    """`history` and `history 20` list; -a/-w/-c/-d and the rest change or write the history file."""
    return ctx.read() if all(a.isdigit() for a in args) else ctx.write("changes the shell history")


def _trap(args: list[str], ctx: _Ctx) -> Verdict:
    """`trap CMD SIGNAL` runs CMD later in the same shell (EXIT fires when the call ends)."""
    pos = [a for a in args if a not in ("-p", "-l", "--")]
    if not pos or pos[0] in ("", "-") or pos[0].isdigit() or args[:1] in (["-p"], ["-l"]):
        return ctx.read()
    return _classify(pos[0], ctx.depth + 1)


_IP_WRITES = {"add", "del", "delete", "set", "flush", "change", "replace", "append", "prepend", "restore",
              "exec", "attach", "detach", "save", "load", "link-netns"}


def _ip(args: list[str], ctx: _Ctx) -> Verdict:
    return ctx.write("changes the network configuration (ip)") if _IP_WRITES & set(args) else ctx.read()


def _watch(args: list[str], ctx: _Ctx) -> Verdict:
    """watch runs its arguments again and again through `sh -c` (or directly with -x)."""
    rest = _after_options(args, {"-n", "--interval", "-q", "--equexit"}) or []
    if not rest:
        return ctx.read()
    if "-x" in args or "--exec" in args:
        return _judge_words(rest, ctx)
    return _classify(" ".join(rest), ctx.depth + 1)


_SYSTEMCTL_READS = {"status", "is-active", "is-enabled", "is-failed", "is-system-running", "list-units",
                    "list-unit-files", "list-timers", "list-sockets", "list-dependencies", "list-jobs",
                    "show", "cat", "help", "--version", "get-default"}


def _systemctl(args: list[str], ctx: _Ctx) -> Verdict:
    pos = _positionals(args)
    return ctx.read() if not pos or pos[0] in _SYSTEMCTL_READS else ctx.write("controls services")


def _service(args: list[str], ctx: _Ctx) -> Verdict:
    pos = _positionals(args)
    return ctx.read() if args == ["--status-all"] or pos[1:2] == ["status"] else ctx.write("controls services")


def _crontab(args: list[str], ctx: _Ctx) -> Verdict:
    return ctx.read() if "-l" in args and not {"-e", "-r", "-i"} & set(args) else ctx.write("changes the crontab")


def _printf(args: list[str], ctx: _Ctx) -> Verdict:
    if any(a.startswith("-v") for a in args):
        return ctx.unknown(f"`{ctx.segment}` assigns a variable with printf -v")
    return ctx.read()


_OPENSSL_READS = {"x509", "verify", "version", "s_client", "crl", "asn1parse", "ciphers", "list", "dgst", "rand",
                  "pkey", "rsa", "ec", "base64", "sha256", "sha1", "md5", "errstr", "prime", "req"}
_OPENSSL_WRITES = ("-out", "-keyout", "-writerand", "-sess_out", "-keylogfile", "-engine", "-provider",
                   "-provider-path", "-new", "-newkey")


def _openssl(args: list[str], ctx: _Ctx) -> Verdict:
    """Inspecting certificates and digests prints; -out/-keyout write, -new makes keys, -engine loads code."""
    if args[:1] and args[0] in _OPENSSL_READS and not any(a.startswith(_OPENSSL_WRITES) for a in args):
        return ctx.read()
    return ctx.unknown(f"`{ctx.segment}` runs openssl in a mode that may write files")


_pip = _subcommand(_PIP_READ, _PIP_WRITE, "installs or removes packages (pip)")
_NPM = _subcommand(
    {"ls", "list", "view", "info", "outdated", "whoami", "search", "help", "doctor", "why", "explain",
     "config-get", "root", "bin", "prefix", "show", "-v", "fund"},
    {"install", "i", "ci", "add", "remove", "rm", "uninstall", "un", "publish", "update", "upgrade", "up",
     "link", "unlink", "dedupe", "prune", "pack", "init", "create", "set", "version-bump", "audit-fix",
     "exec", "dlx", "run", "test", "t", "start", "build", "import", "rebuild", "unpublish", "deprecate",
     "install-test", "it"},
    "installs, publishes or runs packages")
_APT = _subcommand(
    {"list", "search", "show", "policy", "showpkg", "depends", "rdepends", "madison", "info", "deps", "uses",
     "leaves", "outdated", "doctor", "config", "--prefix", "provides", "repolist", "check-update", "history",
     "whatprovides", "home", "desc", "cat"},
    {"install", "remove", "purge", "update", "upgrade", "full-upgrade", "dist-upgrade", "autoremove",
     "reinstall", "uninstall", "add", "del", "erase", "tap", "untap", "cleanup", "link", "unlink", "clean",
     "autoclean", "build-dep", "makecache", "downgrade", "pin", "services", "bundle", "source"},
    "installs or removes system packages")
_CARGO = _subcommand(
    {"tree", "metadata", "search", "--list", "locate-project", "pkgid", "verify-project", "read-manifest"},
    {"build", "b", "install", "publish", "add", "remove", "run", "r", "test", "t", "clean", "update", "fmt",
     "check", "c", "clippy", "bench", "doc", "fix", "new", "init", "uninstall", "package", "vendor",
     "generate-lockfile", "yank", "login", "owner"},
    "builds, installs or changes the package (cargo)")
_GO = _subcommand(
    {"version", "env", "list", "doc", "help", "vet"},
    {"build", "install", "get", "mod", "run", "test", "generate", "fmt", "clean", "work", "fix", "tool"},
    "builds, installs or changes modules (go)")


def _go(args: list[str], ctx: _Ctx) -> Verdict:
    if args[:1] == ["env"] and "-w" in args:
        return ctx.write("changes the go environment (go env -w)")
    return _GO(args, ctx)


HANDLERS: dict[str, _Handler] = {
    "curl": _curl, "wget": _wget, "tar": _tar, "unzip": _unzip, "date": _date, "hostname": _hostname,
    "eval": _eval, "mktemp": _mktemp, "docker": _docker, "kubectl": _kubectl, "gh": _gh, "pip": _pip, "pip3": _pip,
    "npm": _NPM, "pnpm": _NPM, "yarn": _NPM, "apt": _APT, "apt-get": _APT, "apt-cache": _APT, "dnf": _APT,
    "yum": _APT, "brew": _APT, "cargo": _CARGO, "go": _go, "history": _history, "trap": _trap, "ip": _ip,
    "watch": _watch, "systemctl": _systemctl, "service": _service, "crontab": _crontab, "openssl": _openssl,
    "printf": _printf,
}
