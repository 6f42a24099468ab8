#!/usr/bin/env python3
"""Benchmark/verify DeepGEMM's block-scaled FP8 GEMM (1x128 activation scales, 128x128 weight scales, BF16 out).

Benchmarking aid for tcgemm (a probe). Uses the DeepGEMM copy bundled in .dg/ (benchmarks/probes/deepgemm_bundle.md:
commit, CUTLASS version, patches; the bundle is not in the repository). Run from the repository root:

    python3 benchmarks/probes/deepgemm_runner.py --shapes 64x2112x7168,4096x7168x16384 --json out.json
    python3 benchmarks/probes/deepgemm_runner.py --check-only
    python3 benchmarks/probes/deepgemm_runner.py --compile-only   # no GPU needed: only runs nvcc for the configs

benchmarks/probes/deepgemm_vs_tcgemm.py imports it to time DeepGEMM and tcgemm in one process: ``make_problem``
builds inputs in DeepGEMM's layouts, ``time_graph`` / ``time_eager`` time a call.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
import traceback

# The bundle (deep_gemm/ and cutlass_include/): $DG_BUNDLE, else .dg/ at the repository root
# (benchmarks/probes/deepgemm_bundle.md says how it is assembled).
HERE = os.environ.get('DG_BUNDLE') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '.dg')

# deepseek-ai/DeepGEMM, 2025-04-28 "Less stages for small shape K"
DEEPGEMM_COMMIT = 'd374456787c51ad9c4b3c5dbc3668ea3ad9bb9c2'
DEEPGEMM_VERSION = '1.0.0+d374456 (setup.py version string; pure-Python NVCC JIT, ctypes launcher)'
CUTLASS_COMMIT = 'eefa171318b79cbe2e78514d4cce5cd0fe919d0c'  # NVIDIA/cutlass v3.8.0-1 (DeepGEMM's submodule pin)

DEFAULT_SHAPES = [(m, n, k) for m in (64, 128, 4096)
                  for (n, k) in ((2112, 7168), (24576, 1536), (32768, 512), (7168, 16384), (4096, 7168), (7168, 2048))]
L2_BYTES = 50 * 1024 * 1024


def log(*a):
    print(*a, flush=True)


# ----------------------------------------------------------------------------------------------------------------------
# Environment / import
# ----------------------------------------------------------------------------------------------------------------------
def find_nvcc():
    cands = [os.environ.get('DG_NVCC_COMPILER'), shutil.which('nvcc')]
    for home in (os.environ.get('CUDA_HOME'), os.environ.get('CUDA_PATH'), '/usr/local/cuda'):
        if home:
            cands.append(os.path.join(home, 'bin', 'nvcc'))
    for c in cands:
        if c and os.path.exists(c):
            return os.path.abspath(c)
    raise RuntimeError('nvcc not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin); set DG_NVCC_COMPILER')


def setup(cache_dir=None):
    """Set DeepGEMM's env vars, put the bundle on sys.path and import it. Returns the `deep_gemm` module."""
    nvcc = find_nvcc()
    os.environ['DG_NVCC_COMPILER'] = nvcc
    os.environ.setdefault('DG_CACHE_DIR', cache_dir or f'/tmp/deep_gemm_jit_cache_{os.getuid()}')
    os.environ.setdefault('DG_CUTLASS_INCLUDE_DIR', os.path.join(HERE, 'cutlass_include'))
    if not os.environ.get('CUDA_HOME'):
        # torch.utils.cpp_extension.CUDA_HOME is only used by DeepGEMM as a fallback nvcc location
        os.environ['CUDA_HOME'] = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import deep_gemm
    return deep_gemm


def nvcc_version():
    try:
        out = subprocess.run([os.environ['DG_NVCC_COMPILER'], '--version'], capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1]
    except Exception as e:  # pragma: no cover  # noqa: BLE001 (a probe: reported, the run goes on)
        return f'unknown ({e})'


# ----------------------------------------------------------------------------------------------------------------------
# JIT pre-compilation (parallel; identical source text to what gemm_fp8_fp8_bf16_nt generates -> disk cache hit)
# ----------------------------------------------------------------------------------------------------------------------
def gemm_config(m, n, k, num_sms):
    from deep_gemm.jit_kernels import gemm as G
    sms, block_m, block_n, num_stages, tma, smem = G.get_best_configs(m, n, k, 1, num_sms)
    keys = {'N': n, 'K': k, 'BLOCK_M': block_m, 'BLOCK_N': block_n,
            'SWIZZLE_D_MODE': smem[1], 'BLOCK_N_PADDING': smem[2], 'NUM_STAGES': num_stages,
            'NUM_TMA_MULTICAST': tma[0], 'IS_TMA_MULTICAST_ON_A': tma[1]}
    return {'grid_sms': sms, 'smem_bytes': smem[0], **keys}


def gemm_source(m, n, k, num_sms):
    import torch
    from deep_gemm.jit import cpp_format, generate
    from deep_gemm.jit_kernels import gemm as G
    cfg = gemm_config(m, n, k, num_sms)
    keys = {key: cfg[key] for key in sorted(cfg) if key not in ('grid_sms', 'smem_bytes')}
    arg_defs = (('lhs', torch.float8_e4m3fn), ('lhs_scales', torch.float),
                ('rhs', torch.float8_e4m3fn), ('rhs_scales', torch.float),
                ('out', torch.bfloat16), ('m', int),
                ('stream', torch.cuda.Stream), ('num_sms', int), ('smem_size', int))
    return arg_defs, generate(G.includes, arg_defs, cpp_format(G.template, keys))


def precompile(shapes, num_sms, jobs):
    """Compile the JIT kernels of all shapes in parallel. Returns {shape: error string or None}."""
    from concurrent.futures import ThreadPoolExecutor

    from deep_gemm.jit import build
    srcs, errors = {}, {}
    for s in shapes:
        try:
            arg_defs, code = gemm_source(*s, num_sms)
            srcs.setdefault(code, (arg_defs, []))[1].append(s)
        except Exception as e:  # noqa: BLE001 (a probe: reported, the run goes on)
            errors[s] = f'config/codegen failed: {e!r}'

    def one(item):
        code, (arg_defs, ss) = item
        t0 = time.time()
        try:
            rt = build('gemm_fp8_fp8_bf16_nt', arg_defs, code)
            return ss, None, time.time() - t0, rt.path
        except BaseException as e:  # CalledProcessError etc.  # noqa: BLE001 (a probe: reported, the run goes on)
            return ss, repr(e), time.time() - t0, None

    t0 = time.time()
    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for ss, err, dt, path in ex.map(one, list(srcs.items())):
            for s in ss:
                errors[s] = err
            log(f'  [jit] {"OK  " if err is None else "FAIL"} {dt:6.1f}s {",".join("x".join(map(str, s)) for s in ss)}'
                f' -> {path or err}')
    log(f'  [jit] {len(srcs)} kernel(s) ready in {time.time() - t0:.1f}s (cache: {os.environ["DG_CACHE_DIR"]})')
    return errors


# ----------------------------------------------------------------------------------------------------------------------
# Inputs in DeepGEMM's layouts
# ----------------------------------------------------------------------------------------------------------------------
def per_token_cast_to_fp8(x):
    """x [m, k] -> (fp8 [m, k], fp32 scales [m, k/128]) with one scale per 1x128 group (DeepGEMM test_core.py)."""
    import torch
    m, k = x.shape
    xv = x.view(m, -1, 128)
    amax = xv.abs().float().amax(dim=2).view(m, -1).clamp(1e-4)
    return (xv * (448.0 / amax.unsqueeze(2))).to(torch.float8_e4m3fn).view(m, k), (amax / 448.0).view(m, -1)


def per_block_cast_to_fp8(y):
    """y [n, k] -> (fp8 [n, k], fp32 scales [ceil(n/128), k/128]) with one scale per 128x128 block."""
    import torch
    n, k = y.shape
    pn, pk = -(-n // 128) * 128, -(-k // 128) * 128
    yp = torch.zeros((pn, pk), dtype=y.dtype, device=y.device)
    yp[:n, :k] = y
    yv = yp.view(-1, 128, pk // 128, 128)
    amax = yv.abs().float().amax(dim=(1, 3), keepdim=True).clamp(1e-4)
    ys = (yv * (448.0 / amax)).to(torch.float8_e4m3fn)
    return ys.view_as(yp)[:n, :k].contiguous(), (amax / 448.0).view(yv.size(0), yv.size(2))


def dequant_reference(a, sa, b, sb):
    """float64 reference of the dequantized operands: (A * sa) @ (B * sb)^T."""
    k = a.shape[1]
    n = b.shape[0]
    a64 = a.double() * sa.double().repeat_interleave(128, dim=1)[:, :k]
    b64 = b.double() * sb.double().repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)[:n, :k]
    return a64 @ b64.t()


def make_problem(dg, m, n, k, ncopies=1, seed=0):
    """Returns (copies, ref) where copies[i] = (lhs=(a_fp8, a_scales_tma), rhs=(b_fp8, b_scales), out) and
    ref = float64 [m, n] reference for copy 0 (all copies hold the same values)."""
    import torch
    g = torch.Generator(device='cuda').manual_seed(seed)
    x = torch.randn((m, k), device='cuda', dtype=torch.float32, generator=g).to(torch.bfloat16)
    y = torch.randn((n, k), device='cuda', dtype=torch.float32, generator=g).to(torch.bfloat16)
    a, sa = per_token_cast_to_fp8(x)
    b, sb = per_block_cast_to_fp8(y)
    del x, y
    ref = dequant_reference(a, sa, b, sb)
    copies = []
    for i in range(ncopies):
        ai, bi = (a, b) if i == 0 else (a.clone(), b.clone())
        # LHS scales must be column-major and TMA-aligned (M padded to 4); converting once here keeps the transpose
        # kernel that gemm_fp8_fp8_bf16_nt would otherwise launch on every call out of the timing (as DeepGEMM's test)
        sai = dg.get_col_major_tma_aligned_tensor(sa.clone())
        sbi = sb.clone().contiguous()
        out = torch.empty((m, n), device='cuda', dtype=torch.bfloat16)
        copies.append(((ai, sai), (bi, sbi), out))
    return copies, ref


def rel_error(out, ref):
    import torch
    d = out.double() - ref
    return (torch.linalg.vector_norm(d) / torch.linalg.vector_norm(ref).clamp_min(1e-300)).item()


# ----------------------------------------------------------------------------------------------------------------------
# Timing
# ----------------------------------------------------------------------------------------------------------------------
_CYCLES_PER_US = None


def cycles_per_us():
    """Calibrate torch.cuda._sleep (spin) cycles per microsecond once."""
    global _CYCLES_PER_US
    import torch
    if _CYCLES_PER_US is None:
        try:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1000)
            s.record()
            torch.cuda._sleep(2_000_000)
            e.record()
            e.synchronize()
            _CYCLES_PER_US = 2_000_000 / max(1.0, s.elapsed_time(e) * 1e3)
        except Exception:  # noqa: BLE001 (a probe: reported, the run goes on)
            _CYCLES_PER_US = 0.0
    return _CYCLES_PER_US


def time_eager(fn_i, ncopies, iters, warmup, batch=50):
    """Per-call CUDA-event times (us) of back-to-back calls, rotating over `ncopies` input sets.
    A GPU spin kernel is queued before each batch so that the host (DeepGEMM's Python + ctypes launch path) can queue
    the whole batch ahead of the GPU: the events then bracket GPU execution only, not host launch latency.
    Also returns the host-side wall time per call (launch overhead bound)."""
    import torch
    for i in range(warmup):
        fn_i(i % ncopies)
    torch.cuda.synchronize()
    # host cost per call (no sync inside the loop)
    t0 = time.perf_counter()
    nh = max(10, min(iters, 100))
    for i in range(nh):
        fn_i(i % ncopies)
    host_us = (time.perf_counter() - t0) / nh * 1e6
    torch.cuda.synchronize()
    cpu = cycles_per_us()
    times, idx = [], 0
    while len(times) < iters:
        nb = min(batch, iters - len(times))
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(nb)]
        if cpu > 0:
            torch.cuda._sleep(int(cpu * (host_us + 10.0) * nb * 1.5 + 1000))
        for s, e in ev:
            s.record()
            fn_i(idx % ncopies)
            e.record()
            idx += 1
        torch.cuda.synchronize()
        times += [s.elapsed_time(e) * 1e3 for s, e in ev]
    return times, host_us


def time_graph(fn_i, ncopies, calls_per_graph, replays, warmup=3):
    """Capture `calls_per_graph` calls (rotating copies) into one CUDA graph; returns per-call us of each replay."""
    import torch
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # one eager call on the capture stream first
        fn_i(0)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    with torch.cuda.graph(g):
        for i in range(calls_per_graph):
            fn_i(i % ncopies)
    torch.cuda.synchronize()
    for _ in range(warmup):
        g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3 / calls_per_graph)
    del g
    return times


# ----------------------------------------------------------------------------------------------------------------------
# One shape
# ----------------------------------------------------------------------------------------------------------------------
def bench_shape(dg, m, n, k, iters=200, warmup=20, graph=True, tol=2e-2, min_copies=2, max_copies=64, timing=True):
    import torch
    res = {'shape': f'{m}x{n}x{k}', 'm': m, 'n': n, 'k': k}
    res['config'] = gemm_config(m, n, k, dg.get_num_sms())
    bytes_per_set = m * k + n * k + 2 * m * n + 4 * (m * (k // 128) + (-(-n // 128)) * (k // 128))
    ncopies = max(min_copies, min(max_copies, math.ceil(2 * L2_BYTES / bytes_per_set) + 1))
    if not timing:
        ncopies = 1
    res['ncopies'] = ncopies
    res['rotating_bytes'] = ncopies * bytes_per_set
    copies, ref = make_problem(dg, m, n, k, ncopies)

    def fn_i(i):
        lhs, rhs, out = copies[i]
        dg.gemm_fp8_fp8_bf16_nt(lhs, rhs, out)

    # first call: JIT build (or cache load) + correctness
    t0 = time.time()
    fn_i(0)
    torch.cuda.synchronize()
    res['first_call_s'] = round(time.time() - t0, 3)
    res['rel_error'] = rel_error(copies[0][2], ref)
    res['ok'] = bool(res['rel_error'] < tol)
    del ref
    flops = 2.0 * m * n * k

    if timing:
        times, host_us = time_eager(fn_i, ncopies, iters, warmup)
        res['us_eager'] = statistics.median(times)
        res['us_eager_min'] = min(times)
        res['us_host_per_call'] = host_us
        res['tflops'] = flops / (res['us_eager'] * 1e-6) / 1e12
        # results of later copies must match copy 0 (same values); catches rotation/aliasing bugs
        res['copies_consistent'] = bool(all(torch.equal(c[2], copies[0][2]) for c in copies[1:]))
    if graph:
        try:
            calls = max(ncopies, 20)
            gt = time_graph(fn_i, ncopies, calls, replays=max(10, iters // calls) if timing else 2)
            res['us_graph'] = statistics.median(gt)
            res['tflops_graph'] = flops / (res['us_graph'] * 1e-6) / 1e12
            res['graph_capturable'] = True
        except Exception as e:  # noqa: BLE001 (a probe: reported, the run goes on)
            res['graph_capturable'] = False
            res['graph_error'] = repr(e)
            log(f'  graph capture failed for {res["shape"]}: {e!r}')
    copies.clear()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return res


def parse_shapes(s):
    if not s:
        return list(DEFAULT_SHAPES)
    out = []
    for t in s.split(','):
        t = t.strip().lower()
        if t:
            m, n, k = (int(v) for v in t.split('x'))
            out.append((m, n, k))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--shapes', default='', help='comma list of MxNxK (default: the 18 DeepSeek-V3 dense shapes)')
    ap.add_argument('--json', default='', help='write results here (rewritten after every shape)')
    ap.add_argument('--check-only', action='store_true',
                    help='compile + run + check one small shape, graph capture test')
    ap.add_argument('--compile-only', action='store_true', help='only run nvcc for the shapes (no GPU needed)')
    ap.add_argument('--num-sms', type=int, default=0,
                    help='SM count for config selection (default: device; 132 without GPU)')
    ap.add_argument('--iters', type=int, default=200)
    ap.add_argument('--warmup', type=int, default=20)
    ap.add_argument('--no-graph', action='store_true')
    ap.add_argument('--jobs', type=int, default=min(16, os.cpu_count() or 1), help='parallel nvcc jobs for precompile')
    ap.add_argument('--no-precompile', action='store_true')
    ap.add_argument('--tol', type=float, default=2e-2, help='max relative Frobenius error vs float64 reference')
    ap.add_argument('--cache-dir', default=None,
                    help='JIT cache (default /tmp/deep_gemm_jit_cache_<uid> or $DG_CACHE_DIR)')
    args = ap.parse_args()

    dg = setup(args.cache_dir)
    import torch
    shapes = parse_shapes(args.shapes)
    if args.check_only:
        shapes = shapes[:1] if args.shapes else [(128, 4096, 7168)]

    meta = {'deepgemm_commit': DEEPGEMM_COMMIT, 'deepgemm_version': DEEPGEMM_VERSION,
            'deepgemm_content_hash': dg.jit.compiler.get_deep_gemm_version(), 'cutlass_commit': CUTLASS_COMMIT,
            'nvcc': os.environ['DG_NVCC_COMPILER'], 'nvcc_version': nvcc_version(), 'torch': torch.__version__,
            'torch_cuda': torch.version.cuda, 'jit_cache': os.environ['DG_CACHE_DIR']}

    if args.compile_only:
        num_sms = args.num_sms or (dg.get_num_sms() if torch.cuda.is_available() else 132)
        log(f'compile-only: {len(shapes)} shape(s), num_sms={num_sms}, {meta["nvcc_version"]}')
        errs = precompile(shapes, num_sms, args.jobs)
        bad = {s: e for s, e in errs.items() if e}
        log('compile-only: ' + ('all OK' if not bad else f'{len(bad)} FAILED'))
        sys.exit(1 if bad else 0)

    if not torch.cuda.is_available():
        log('CUDA not available; use --compile-only on a machine without GPU')
        sys.exit(2)
    if args.num_sms:
        dg.set_num_sms(args.num_sms)
    props = torch.cuda.get_device_properties(0)
    meta.update({'gpu': props.name, 'sm_count': props.multi_processor_count, 'num_sms_used': dg.get_num_sms(),
                 'capability': f'{props.major}.{props.minor}', 'iters': args.iters, 'warmup': args.warmup,
                 'timing': 'us_eager: median per-call CUDA-event time of back-to-back calls (host queued ahead with a '
                           'GPU spin kernel), inputs rotating over >2x L2; us_graph: median per-call time of a CUDA '
                           'graph replay of >=20 calls rotating over the same copies; LHS scales pre-transposed '
                           '(TMA-aligned column-major) outside the timed region as in DeepGEMM tests'})
    log(json.dumps(meta, indent=1))

    errors = {}
    if not args.no_precompile:
        errors = precompile(shapes, dg.get_num_sms(), args.jobs)

    results = []

    def dump():
        if args.json:
            with open(args.json, 'w') as f:
                json.dump({'meta': meta, 'results': results}, f, indent=1)

    for (m, n, k) in shapes:
        tag = f'{m}x{n}x{k}'
        if errors.get((m, n, k)):
            results.append({'shape': tag, 'm': m, 'n': n, 'k': k, 'error': errors[(m, n, k)]})
            log(f'{tag:>18}: SKIPPED (JIT compile failed): {errors[(m, n, k)]}')
            dump()
            continue
        try:
            r = bench_shape(dg, m, n, k, iters=(20 if args.check_only else args.iters), warmup=args.warmup,
                            graph=not args.no_graph, tol=args.tol, timing=True)
            results.append(r)
            log(f'{tag:>18}: rel_err={r["rel_error"]:.2e} {"ok" if r["ok"] else "BAD"} | '
                f'eager {r.get("us_eager", float("nan")):8.1f} us {r.get("tflops", float("nan")):6.1f} TFLOP/s | '
                f'graph {r.get("us_graph", float("nan")):8.1f} us {r.get("tflops_graph", float("nan")):6.1f} TFLOP/s | '
                f'host {r.get("us_host_per_call", float("nan")):.1f} us/call | copies={r["ncopies"]} | '
                f'cfg BM={r["config"]["BLOCK_M"]} BN={r["config"]["BLOCK_N"]} st={r["config"]["NUM_STAGES"]} '
                f'mc={r["config"]["NUM_TMA_MULTICAST"]}')
        except Exception as e:  # noqa: BLE001 (a probe: reported, the run goes on)
            traceback.print_exc()
            results.append({'shape': tag, 'm': m, 'n': n, 'k': k, 'error': repr(e)})
            log(f'{tag:>18}: ERROR {e!r}')
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception as e2:  # sticky CUDA error: later shapes will fail too  # noqa: BLE001 (a probe: reported, the run goes on)
                log(f'  CUDA context unusable after error: {e2!r}')
        dump()

    n_ok = sum(1 for r in results if r.get('ok'))
    log(f'done: {n_ok}/{len(results)} shapes correct' + (f'; json -> {args.json}' if args.json else ''))
    if args.check_only:
        sys.exit(0 if n_ok == len(results) else 1)


if __name__ == '__main__':
    main()
