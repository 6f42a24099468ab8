#!/usr/bin/env bash
# session 6 call 5 (one H200): 128 x 224 c1 h at the 8B gate_up's 65-127 rows; the model bench at the done-when counts.
export PYTHONPATH=$PWD/src TCGEMM_CACHE_DIR=/tmp/tcgemm-cache TCGEMM_TUNE=0 TCGEMM_COMMIT=823d378 PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.txt
W=wgmma_tma_store
timeout 100 python3 -m tcgemm compile --jobs 16 --precision bf16 --layouts rc --kernels $W,swap_ab_stream_k > $R/compile.log 2>&1; tail -1 $R/compile.log
timeout 100 python3 -m tcgemm bench --precision bf16 --layouts rc --budget 0.2 --kernels auto,$W:128x224x64c1,$W:128x224x64c1h --shapes 65x28672x4096,72x28672x4096,80x28672x4096,96x28672x4096,112x28672x4096,120x28672x4096,128x28672x4096 --json $R/gateup8b-h.json > $R/g.log 2>&1; echo g rc=$?
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_correctness.py tests/gpu/test_graphs.py tests/gpu/test_a_halves.py -k "128x224x64c1h" > $R/tests.txt 2>&1; echo tests rc=$?; tail -2 $R/tests.txt
for p in 1 2; do timeout 130 python3 -m tcgemm bench --model all --tokens 1,3,16,48,64,72,96,112,128,300,512,2048,3000,8192 --no-train --budget 0.1 --json $R/models-all-p$p.json > $R/m$p.log 2>&1; echo m$p rc=$?; done
tar czf $OUT/r.tgz -C $OUT r
