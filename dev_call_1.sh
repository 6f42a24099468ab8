#!/usr/bin/env bash
# session 6 call 1 (one H200): grouped GEMMs on the overlapped-epilogue 128 x 256 config.
export PYTHONPATH=$PWD/src TCGEMM_CACHE_DIR=/tmp/tcgemm-cache TCGEMM_TUNE=0 TCGEMM_COMMIT=07edb16 PYTHONUNBUFFERED=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/gpu.txt
K=wgmma_tma_store:128x256x64s4b2o,wgmma_tma_store:128x256x64s4b2,wgmma_tma_store:128x256x64s4b2s,wgmma_tma_store:128x128x64,wgmma_tma_store:64x128x64,wgmma_tma_store:64x64x64,wgmma_tma_store:128x64x64
for p in bf16 fp16; do timeout 100 python3 -m tcgemm compile --jobs 16 --precision $p --layouts rc --kernels $K > $R/compile-$p.log 2>&1; tail -1 $R/compile-$p.log; done
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_grouped_gemm.py -k "not fp8 and not prefix_kernel" > $R/tests.txt 2>&1; echo tests rc=$?; tail -3 $R/tests.txt
P=benchmarks/probes/grouped_config_ab.py
timeout 120 python3 $P $R/ab-o-vs-plain.json --config 128x256x64s4b2o --against 128x256x64s4b2 --tokens 512,2048,4096 --budget 0.3 > $R/ab1.log 2>&1; echo ab1 rc=$?
timeout 90 python3 $P $R/ab-o-vs-snake.json --config 128x256x64s4b2o --against 128x256x64s4b2s --tokens 2048,4096 --budget 0.3 > $R/ab2.log 2>&1; echo ab2 rc=$?
timeout 100 python3 -m tcgemm.grouped_bench --layout contiguous --tokens 32,128,512,2048 --budget 0.2 --json $R/grouped-contiguous.json > $R/gc.log 2>&1; echo gc rc=$?
timeout 100 python3 -m tcgemm.grouped_bench --layout masked --tokens 32,128,512,2048 --budget 0.2 --json $R/grouped-masked.json > $R/gm.log 2>&1; echo gm rc=$?
tar czf $OUT/r.tgz -C $OUT r
