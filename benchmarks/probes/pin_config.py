"""Pin tile configs into this GPU's tune cache, so that `kernel="auto"` (and tcgemm.nn.Linear, and so the model
benchmark) runs them at chosen shapes: an A/B of a config inside the model benchmark's CUDA graphs and weight
rotation, against processes with TCGEMM_TUNE=0 (the heuristic alone).

    python3 benchmarks/probes/pin_config.py 512x28672x4096:128x128x64pp --layouts rc
    python3 -m tcgemm bench --model llama3-8b --tokens 512 --no-train --json pinned.json     # uses the pin
    TCGEMM_TUNE=0 python3 -m tcgemm bench --model llama3-8b --tokens 512 --no-train --json plain.json

A pin covers the shape's whole class (M rounded up to a power of two, N and K exact: tcgemm.tuned.shape_key).
`tcgemm tune --clear` removes pins with the rest of the cache.
"""

from __future__ import annotations

import argparse

from tcgemm import tune, tuned
from tcgemm.cli import parse_shape


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("pins", nargs="+", help="MxNxK:config (a config of the kernel auto picks there)")
    p.add_argument("--precision", default="bf16")
    p.add_argument("--layouts", default="rc", help="as the model's Linear runs: rc (x @ W.t())")
    args = p.parse_args()
    import torch

    cc = 10 * torch.cuda.get_device_capability()[0] + torch.cuda.get_device_capability()[1]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    key = tuned.current_key()
    path = tuned.cache_path(key)
    data = tuned.read_cache(path)
    entries = dict(data["entries"]) if data is not None and data.get("key") == key else {}
    for pin in args.pins:
        shape, _, config = pin.partition(":")
        planned = tune.plan([parse_shape(shape)], args.precision, args.layouts, cc, sms)[0]
        if config not in {c.name for c in planned.configs}:
            raise SystemExit(f"{pin}: {planned.spec.name} has no config {config!r} for this shape "
                             f"({', '.join(c.name for c in planned.configs)})")
        entries[planned.key] = {"spec": planned.spec.name, "best": config, "heuristic": planned.heuristic.name,
                                "arch": cc, "sms": sms, "shape": list(planned.shape), "layouts": args.layouts,
                                "times_ms": {}, "timed_as": "pinned", "skipped": {}}
        print(f"{planned.key}: {planned.spec.name}:{config} (heuristic {planned.heuristic.name})")
    tuned.write_cache(path, key, entries)
    print(f"written: {path}")


if __name__ == "__main__":
    main()
