"""Where the hardware places the CTAs of a cluster launch, and what tcgemm.placement makes of it.

    python3 benchmarks/probes/sm_placement.py    (GPU only; prints JSON)

`gpcs`: SM ids per GPC as tcgemm.placement measures them (clusters of 16, 8 and 4 CTAs, one per SM);
`pairs_1`, `pairs_2`: the SM ids of CTA ranks 0 and 1 of each cluster of a persistent launch of
clusters of 2 (one per TPC), in cluster-id order, twice (does placement repeat from launch to
launch?); `gpc_of_cluster_*`: the GPC index of each of those clusters (the block scheduler deals
them to the GPCs in turn); `table`: the wave position each SM prefers in a GPC_ORDER launch (groups
of 8 unit rows).
"""

from __future__ import annotations

import json
import sys

import torch

from tcgemm import placement


def main() -> int:
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    gpcs = [list(g) for g in placement.gpcs(0)]
    gpc_of = {s: i for i, g in enumerate(gpcs) for s in g}
    result: dict[str, object] = {"device": torch.cuda.get_device_name(0), "sms": sms, "gpcs": gpcs}
    for run in (1, 2):
        smids = placement._probe(0, 2, sms // 2)
        pairs = [smids[i:i + 2] for i in range(0, len(smids), 2)]
        result[f"pairs_{run}"] = pairs
        result[f"gpc_of_cluster_{run}"] = [gpc_of.get(p[0], -1) for p in pairs]
    result["table"] = placement.table(gpcs, sms // 2, 8)[:sms].tolist()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
