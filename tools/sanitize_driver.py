"""Run every kernel of the registry once, for each precision and tile config, at small edge shapes:
the program compute-sanitizer watches (tools/sanitize.sh).

    python3 tools/sanitize_driver.py [--filter SUBSTRING] [--list]

Shapes: kernels that need 16-byte aligned operands (TMA) get 72 x 136 x 208 in a layout they
serve (ragged against every tile, partial k-tiles); the others 33 x 47 x 65; tail-split,
overlapped-epilogue and ping-pong configs (TAIL_SPLIT, EPI_OVERLAP, PINGPONG) a ragged 72-unit
problem, more units than an H100 has clusters. Each output is checked
against float64 as well, so a kernel that the sanitizer passes but that computes garbage still fails.
"""

from __future__ import annotations

import argparse
import sys

import torch

import tcgemm
from tcgemm import registry
from tcgemm.check import TOLERANCE, check


def cases(filter_text: str | None, all_configs: bool = False) -> list[tuple[str, str, str, tuple[int, int, int], str]]:
    """Every kernel and precision; per pair the first tile config and each config that runs other code
    paths (split-K, another cluster size, a staged epilogue, another number of consumer warpgroups);
    every config with all_configs."""
    out = []
    for spec in registry.all_specs():
        seen: set[tuple[object, ...]] = set()
        for cfg in spec.configs:
            for precision in spec.precisions:
                if not cfg.serves(precision):
                    continue
                # consumer warpgroups (barrier counts) and m64 wgmmas per consumer; which operand a cluster shares
                consumers = cfg.consumers if spec.family == "hopper" else 0
                # a one-box MN-major B tile split along k by the cluster (B_BOX_K): run row-major B for it
                k_split = spec.family == "hopper" and cfg.get("B_BOX_K", cfg.get("BLOCK_K")) != cfg.get("BLOCK_K")
                variant = (precision, cfg.get("SPLIT_K", 1), spec.cluster_of(cfg), cfg.get("EPI_PARTS", 1),
                           cfg.get("EPI_BUFS", 1), consumers, cfg.get("WG_M", 64), cfg.get("CLUSTER_ALONG_N", 0),
                           k_split, cfg.get("TAIL_SPLIT", 0), cfg.get("EPI_OVERLAP", 0), cfg.get("GPC_ORDER", 0),
                           cfg.get("D_TRANSPOSED", 0), cfg.get("D_BOX_BYTES", 128), cfg.get("PINGPONG", 0),
                           cfg.get("CLUSTER_2D", 0),
                           cfg.name if cfg.get("STREAM_K") else "")  # (each stream-K config: its own ring)
                if variant in seen and not all_configs:
                    continue
                seen.add(variant)
                name = f"{spec.name}:{cfg.name}"
                if filter_text and filter_text not in f"{name}-{precision}":
                    continue
                layouts = "rc" if "rc" in spec.layouts else spec.layouts[0]
                if k_split and "rr" in spec.layouts:
                    layouts = "rr"
                # K a multiple of 16 keeps 1-byte K-major rows (int8, fp8) aligned for TMA
                shape = (72, 136, 208) if spec.requires_aligned16 else (33, 47, 65)
                if cfg.get("TAIL_SPLIT") or cfg.get("EPI_OVERLAP") or cfg.get("PINGPONG"):
                    # 9 x 8 cluster units on an H100's 66 clusters: the tail split runs, and 6 clusters take
                    # a second tile (EPI_OVERLAP's epilogue then issues the next tile's first k-tile; PINGPONG's
                    # second consumer takes it, after its turn)
                    bm, bn, bk = 2 * cfg["BLOCK_M"], cfg["BLOCK_N"], cfg["BLOCK_K"]
                    shape = (9 * bm - 40, 8 * bn - 8, 16 * bk - 16)
                if cfg.get("STREAM_K"):
                    # five weight tiles of nine k-tiles (4104 = 8 boxes of 512 + 8): every tile summed by several
                    # CTAs through the fixup (kernels/include/stream_k.cuh), M past one token tile
                    shape = (cfg["BLOCK_M"] + 3, 5 * cfg["BLOCK_N"] - 56, 4104)
                out.append((spec.name, cfg.name, precision, shape, layouts))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", help="only kernels whose 'name:config-precision' contains this")
    parser.add_argument("--list", action="store_true", help="print the cases and exit")
    parser.add_argument("--all-configs", action="store_true", help="every tile config, not one per code path")
    args = parser.parse_args()
    todo = cases(args.filter, args.all_configs)
    if args.list:
        for c in todo:
            print(*c)
        return 0
    cc = torch.cuda.get_device_capability()
    failed = ran = 0
    for name, config, precision, (m, n, k), layouts in todo:
        spec = registry.get(name)
        if cc[0] * 10 + cc[1] < spec.min_arch:
            continue
        runs: list[dict[str, object]] = [{"seed": 1}]
        if spec.tma_store and precision in ("fp16", "bf16"):
            # and with a bias row (beta = 1): the TMA-store epilogue's C_ROW path (loads and shuffles,
            # beside the next tile's wgmmas in EPI_OVERLAP configs; kernels/include/epilogue_tma.cuh)
            runs.append({"seed": 2, "beta": 1.0, "c_shape": "bias"})
        for extra in runs:
            what = f"{name}:{config} {precision} {m}x{n}x{k} {layouts}" + (" + bias" if "c_shape" in extra else "")
            try:
                result = check(m, n, k, kernel=name, config=config, precision=precision, layouts=layouts,
                               **extra)  # type: ignore[arg-type]
                torch.cuda.synchronize()
            except Exception as exc:  # noqa: BLE001 - report and go on with the other kernels
                failed += 1
                print(f"FAILED {what}: {type(exc).__name__}: {exc}")
                continue
            ran += 1
            if not result.passed:
                failed += 1
                print(f"FAILED {what}: error {result.error:.2e} (tolerance {TOLERANCE[precision]}), "
                      f"unwritten {result.unwritten}")
    print(f"sanitize_driver: {ran} kernel launches checked, {failed} wrong results (tcgemm {tcgemm.__version__})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
