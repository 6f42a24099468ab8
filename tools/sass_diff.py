"""Compare the SASS of every build of some kernel sources between two source trees.

A refactor of a kernel (code moved into headers or functions, ``#if`` turned into
``if constexpr``) is neutral when ptxas emits the same machine code: then no GPU run is
needed to show that nothing got slower.  This tool compiles every build the launcher can
ask for (``tcgemm.launch.all_builds()``, kept to the given ``--source`` files) from two
trees, with each tree's own tcgemm package and kernels, for one architecture (NVRTC, no GPU
needed), disassembles each cubin with NVIDIA's cuobjdump and compares the listings.

What is compared: every instruction line of ``cuobjdump -sass`` (address, opcode, operands,
registers, predicates, and the encoding words, which hold the scheduling control bits).
What is dropped before comparing: blank lines and the listing's header (fatbin / ELF lines:
``code for``, ``.target``, ``.headerflags``, ``arch =``, ``code version``, ``host``,
``compile_size``, ``identifier`` / file names).  NVRTC builds carry no line info, so no
file names or line numbers reach the instruction lines; were any ``//## File ...`` line
markers present, they are dropped too.  Resource usage (registers, shared, stack, local
bytes, from ``cuobjdump -res-usage``) and the number of local-memory instructions
(LDL / STL: spills) are reported for both trees.

Examples::

    # every build of two sources, main's revision against the working tree
    python tools/sass_diff.py --base e29587e \\
        --source hopper/03_cluster_multicast.cu --source hopper/04_tma_store_epilogue.cu \\
        --json benchmarks/results/sass-diff.json

    # while iterating: every 10th build, 2 compile processes
    python tools/sass_diff.py --base e29587e --source hopper/04_tma_store_epilogue.cu --sample 10

    # two trees on disk (e.g. two worktrees)
    python tools/sass_diff.py --base-tree /work/main --new-tree . --source hopper/02_persistent.cu

Builds are matched by (kernel name, source, defines); a build only one tree has is reported
as ``only_base`` / ``only_new``.  Cubins are cached under ``--cache`` (one folder per tree
content: the digest of its kernel sources), and so are the normalised listings, so a second
run after an edit recompiles only what changed.  The exit status is 0 when every compared
build is identical, 1 otherwise (2 for compile errors).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = Path.home() / ".cache" / "tcgemm-sass-diff"

# Lines of `cuobjdump -sass` that describe the container, not the code.
_HEADER = re.compile(
    r"^\s*(Fatbin \w+ code:|=+$|arch = |code version = |host = |compile_size = |identifier = |"
    r"code for sm_|\.target\s|\.headerflags\s|//## File )"
)
_SPILL_OP = re.compile(r"\b(LDL|STL)(\.[A-Z0-9_.]+)?\s")


def normalise(listing: str) -> list[str]:
    """The instruction lines (and ``Function :`` lines) of a SASS listing, whitespace-trimmed."""
    out = []
    for line in listing.splitlines():
        if not line.strip() or _HEADER.match(line):
            continue
        out.append(" ".join(line.split()))
    return out


# ---------------------------------------------------------------- worker (runs inside one tree)


def _config_name(spec: Any, defines: dict[str, str]) -> str:
    """The registry config whose params the defines carry (the one with most params)."""
    best, size = "?", -1
    for cfg in spec.configs:
        params = {k: str(v) for k, v in cfg.params.items()}
        if all(defines.get(k) == v for k, v in params.items()) and len(params) > size:
            best, size = cfg.name, len(params)
    return best


def _label(spec: Any, defines: dict[str, str]) -> str:
    precision = next((k[len("PRECISION_"):].lower() for k in defines if k.startswith("PRECISION_")), "?")
    layouts = ("r" if defines.get("A_LAYOUT") == "0" else "c") + ("r" if defines.get("B_LAYOUT") == "0" else "c")
    out = defines.get("ELEM_D", "?").replace("__nv_", "").replace("__", "")
    vec = f" vec{defines['VEC']}" if "VEC" in defines else ""
    return f"{spec.name} {_config_name(spec, defines)} {layouts} {precision}->{out}{vec}"


def _worker(args: argparse.Namespace) -> int:
    """Compile and disassemble shard i of n of this tree's builds; one JSON line per build on stdout."""
    from tcgemm import jit, launch, sass  # this tree's package (PYTHONPATH set by the parent)

    tree_digest = jit._headers_digest()[:16]
    root = Path(args.cache) / tree_digest
    os.environ["TCGEMM_CACHE_DIR"] = str(root / "cubin")
    listings = root / "sass"
    listings.mkdir(parents=True, exist_ok=True)
    builds = [(s, d) for s, d in launch.all_builds() if s.source in args.source]
    index, count = (int(x) for x in args.worker.split("/"))
    written: list[Path] = []
    for i, (spec, defines) in enumerate(builds):
        if i % count != index or (args.sample > 1 and i % args.sample != 0):
            continue
        key = jit.build_key(spec.source, defines, args.arch)
        record: dict[str, Any] = {
            "id": f"{spec.name}|{spec.source}|{','.join(f'{k}={v}' for k, v in sorted(defines))}",
            "label": _label(spec, dict(defines)),
            "kernel": spec.name,
            "source": spec.source,
            "index": i,
        }
        cached = listings / f"{key}.json"
        try:
            if cached.is_file():
                stored = json.loads(cached.read_text())
            else:
                cubin = jit.cubin(spec.source, defines, args.arch)
                lines = normalise(sass.disassemble(cubin))
                usage = sass.resource_usage(cubin)
                text = "\n".join(lines)
                usage["SPILL_OPS"] = sum(1 for line in lines if _SPILL_OP.search(line))
                stored = {"sha": hashlib.sha256(text.encode()).hexdigest(), "usage": usage,
                          "lines": len(lines)}
                (listings / f"{key}.sass").write_text(text)
                cached.write_text(json.dumps(stored))
                written += [cached, listings / f"{key}.sass"]
            record.update(stored, listing=str(listings / f"{key}.sass"))
        except Exception as exc:  # noqa: BLE001 - a compile error is a result to report
            record["error"] = str(exc)[-2000:]
        print(json.dumps(record), flush=True)
    jit._headers_digest.cache_clear()
    if jit._headers_digest()[:16] != tree_digest:  # an edit while compiling: keys and contents may disagree
        for path in written:
            path.unlink(missing_ok=True)
        print(f"{args.worker}: the kernel sources changed while compiling; run again", file=sys.stderr)
        return 3
    return 0


# ---------------------------------------------------------------- driver


@dataclass
class Tree:
    name: str
    path: Path
    builds: dict[str, dict[str, Any]] = field(default_factory=dict)


def _extract(rev: str, cache: Path) -> Path:
    """`git archive` of revision `rev` (its src/ folder) into the cache, once per commit."""
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    dest = cache / "trees" / sha
    if not (dest / "src" / "tcgemm").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha, "src"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def _count_builds(tree: Path, sources: list[str], sample: int) -> int:
    code = ("import sys; from tcgemm import launch; s = set(sys.argv[1:]); "
            "print(sum(1 for sp, _ in launch.all_builds() if sp.source in s))")
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    out = subprocess.run([sys.executable, "-c", code, *sources], env=env, capture_output=True, text=True, check=True)
    total = int(out.stdout.strip())
    return -(-total // sample) if sample > 1 else total


def _progress(name: str, done: int, total: int, started: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    line = f"{name:>5} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}  {elapsed:5.0f}s  eta {eta:4.0f}s"
    if sys.stderr.isatty():
        print("\r" + line, end="" if done < total else "\n", file=sys.stderr, flush=True)
    elif done == total or done % 10 == 0:
        print(line, file=sys.stderr, flush=True)


def _build_tree(tree: Tree, args: argparse.Namespace) -> None:
    """Run `--jobs` worker processes inside `tree` and collect their records."""
    total = _count_builds(tree.path, args.source, args.sample)
    env = {**os.environ, "PYTHONPATH": str(tree.path / "src")}
    env.pop("TCGEMM_DEFINES", None)  # a developer's overlay would change both trees' builds
    command = [sys.executable, str(Path(__file__).resolve()), "--cache", str(args.cache),
               "--arch", args.arch, "--sample", str(args.sample), *(x for s in args.source for x in ("--source", s))]
    procs = [subprocess.Popen([*command, "--worker", f"{i}/{args.jobs}"], env=env, stdout=subprocess.PIPE, text=True)
             for i in range(args.jobs)]
    started, done = time.monotonic(), 0
    _progress(tree.name, 0, total, started)
    sel = selectors.DefaultSelector()
    for p in procs:
        assert p.stdout is not None
        sel.register(p.stdout, selectors.EVENT_READ)
    open_streams = len(procs)
    while open_streams:
        for key, _ in sel.select():
            line = key.fileobj.readline()  # type: ignore[union-attr]
            if not line:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            record = json.loads(line)
            tree.builds[record["id"]] = record
            done += 1
            _progress(tree.name, done, total, started)
    for p in procs:
        if p.wait() != 0:
            raise SystemExit(f"a worker in {tree.path} failed (exit {p.returncode})")


def _first_diff(base: Path, new: Path, context: int) -> list[str]:
    a, b = base.read_text().splitlines(), new.read_text().splitlines()
    i = next((j for j, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return [f"line {i}: - {x}" for x in a[i:i + context]] + [f"line {i}: + {y}" for y in b[i:i + context]]


def _usage(record: dict[str, Any]) -> dict[str, int]:
    u = record.get("usage", {})
    return {"reg": u.get("REG", 0), "shared": u.get("SHARED", 0), "stack": u.get("STACK", 0),
            "local": u.get("LOCAL", 0), "spill_ops": u.get("SPILL_OPS", 0)}


def compare(base: Tree, new: Tree, context: int) -> tuple[list[dict[str, Any]], dict[str, int]]:
    rows, counts = [], {"identical": 0, "differs": 0, "error": 0, "only_base": 0, "only_new": 0}
    for bid in sorted(set(base.builds) | set(new.builds),
                      key=lambda k: (base.builds.get(k) or new.builds[k])["index"]):
        b, n = base.builds.get(bid), new.builds.get(bid)
        some = b or n
        assert some is not None
        row: dict[str, Any] = {"build": some["label"], "source": some["source"]}
        if b is None or n is None:
            row["status"] = "only_new" if b is None else "only_base"
        elif "error" in b or "error" in n:
            row["status"] = "error"
            row["error"] = {"base": b.get("error"), "new": n.get("error")}
        else:
            row["status"] = "identical" if b["sha"] == n["sha"] else "differs"
            before, after = _usage(b), _usage(n)
            if before == after:
                row["resources"] = before
            else:
                row["base"], row["new"] = before, after
            if row["status"] == "differs":
                row["lines"] = {"base": b["lines"], "new": n["lines"]}
                row["first_diff"] = _first_diff(Path(b["listing"]), Path(n["listing"]), context)
        counts[row["status"]] += 1
        rows.append(row)
    return rows, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sass_diff.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], metavar="FILE",
                        help="kernel source under src/tcgemm/kernels (repeatable), e.g. hopper/02_persistent.cu")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--base", metavar="REV", default="HEAD",
                      help="git revision of the baseline, extracted with git archive (default: %(default)s)")
    base.add_argument("--base-tree", type=Path, metavar="DIR", help="a source tree on disk as the baseline")
    parser.add_argument("--new-tree", type=Path, default=REPO, metavar="DIR",
                        help="the tree to compare (default: this checkout's working tree)")
    parser.add_argument("--arch", default="sm_90a", help="NVRTC target (default: %(default)s)")
    parser.add_argument("--sample", type=int, default=1, metavar="K",
                        help="only every K-th build (while iterating; default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="compile processes per tree (default: %(default)s)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="cubins, listings and extracted revisions (default: %(default)s)")
    parser.add_argument("--context", type=int, default=4, help="differing lines shown per build (default: 4)")
    parser.add_argument("--json", type=Path, metavar="FILE",
                        help="write the summary here: counts, and per build its status, resource usage (one "
                             "'resources' when unchanged, else 'base' and 'new') and the first differing lines")
    parser.add_argument("--notes", type=Path, metavar="FILE",
                        help="JSON object {build label or 'general': note} merged into the summary")
    parser.add_argument("--worker", metavar="I/N", help=argparse.SUPPRESS)  # internal: one compile process
    args = parser.parse_args(argv)
    if not args.source:
        parser.error("name at least one --source")
    if args.worker:
        return _worker(args)

    args.cache.mkdir(parents=True, exist_ok=True)
    base_path = args.base_tree.resolve() if args.base_tree else _extract(args.base, args.cache)
    trees = (Tree("base", base_path), Tree("new", args.new_tree.resolve()))
    for tree in trees:
        _build_tree(tree, args)
    rows, counts = compare(*trees, args.context)

    notes: dict[str, str] = json.loads(args.notes.read_text()) if args.notes else {}
    for row in rows:
        if row["build"] in notes:
            row["note"] = notes[row["build"]]
        if row["status"] != "identical":
            print(f"{row['status']:>9}  {row['build']}")
            for line in row.get("first_diff", [])[: 2 * args.context]:
                print(f"           {line}")
        if "base" in row:
            print(f"{'':>9}  resources {row['base']} -> {row['new']}")
    changed = sum(1 for r in rows if "base" in r)
    print(", ".join(f"{v} {k}" for k, v in counts.items() if v) + f"; resource usage changed in {changed}")
    if args.json:
        summary = {
            "base": args.base if not args.base_tree else str(args.base_tree),
            "new": str(args.new_tree) if args.new_tree.resolve() != REPO else "working tree",
            "arch": args.arch, "sources": args.source, "sample": args.sample,
            "compared": "cuobjdump -sass instruction lines (opcodes, operands, encodings); header lines dropped",
            "counts": counts, "resource_changes": changed,
            "notes": notes.get("general", ""),
            "builds": rows,
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        head = json.dumps({k: v for k, v in summary.items() if k != "builds"}, indent=1)[:-2]
        rows_text = ",\n  ".join(json.dumps(row, separators=(",", ":")) for row in rows)
        args.json.write_text(f'{head},\n "builds": [\n  {rows_text}\n ]\n}}\n')  # one line per build
    if counts["error"]:
        return 2
    return 0 if counts["differs"] == counts["only_base"] == counts["only_new"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
