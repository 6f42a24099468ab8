"""Every kernel build the launcher can ask for compiles with NVRTC for sm_80 and
sm_90a (no GPU needed), and its SASS has no local-memory traffic and the
arithmetic instructions its technique promises."""

from __future__ import annotations

import itertools
import os

import pytest
import torch

from tcgemm import jit, launch, registry, sass

ARCHS = ("sm_80", "sm_90a")
ALL_BUILDS = launch.all_builds()


def _sample(builds: list) -> list:
    """One build per (kernel, tile config, precision), its layouts and output type rotating from one
    config to the next so that together they cover every layout and output type. Compiling all of
    them (~900 NVRTC runs) takes over an hour on a 2-core CI machine; TCGEMM_ALL_BUILDS=1 (set by
    tools/gpu_suite.sh, after `tcgemm compile` filled the cache on 16 cores) checks every one."""
    groups: dict[tuple, list] = {}
    for spec, defines in builds:
        d = dict(defines)
        key = (spec.name, *(d.get(k) for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "STAGES", "CLUSTER_M", "EPI_32BIT",
                                               "BLOCK_SCALES")),
               next(k for k in d if k.startswith("PRECISION_")))
        groups.setdefault(key, []).append((spec, defines))
    return [members[i % len(members)] for i, members in enumerate(groups.values())]


BUILDS = ALL_BUILDS if os.environ.get("TCGEMM_ALL_BUILDS") else _sample(ALL_BUILDS)

def _mma_sync_expected(spec, defines) -> set[str]:
    """HMMA (IMMA for int8); LDSM from stage 1 on (the pipeline stage reads MN-major tf32/int8
    operands with plain loads, so a cr build of those has none); LDGSTS (cp.async) in stage 2."""
    d = dict(defines)
    ops = {"IMMA" if "PRECISION_INT8" in d else "HMMA"}
    narrow_or_wide = "PRECISION_INT8" in d or "PRECISION_TF32" in d
    if spec.stage == 1 or (spec.stage >= 2 and not (narrow_or_wide and d["A_LAYOUT"] == "1" and d["B_LAYOUT"] == "0")):
        ops.add("LDSM")
    if spec.stage >= 2:
        ops.add("LDGSTS")
    return ops


def _wmma_expected(spec, defines) -> set[str]:
    return {"IMMA" if "PRECISION_INT8" in dict(defines) else "HMMA"}


def _hopper_expected(spec, defines) -> set[str]:
    """wgmma as HGMMA (fp16/bf16/tf32), IGMMA (int8) or QGMMA (fp8); TMA tile loads (UTMALDG), mbarrier
    operations (SYNCS.*), warpgroup fences/waits; warp-specialised stages move registers between roles
    (USETMAXREG); cluster stages use the cluster barrier (UCGABAR_*); kernels launched with programmatic
    dependent launch wait for the grid before (ACQBULK) and let the next one start (PREEXIT). The stream-K
    decode kernel (stage 5) keeps few registers in either role and writes its transposed D from registers:
    no USETMAXREG or TMA store; its fixup counts arrivals with atomics (ATOMG)."""
    d = dict(defines)
    gmma = "IGMMA" if "PRECISION_INT8" in d else "QGMMA" if any(k.startswith("PRECISION_FP8") for k in d) else "HGMMA"
    ops = {gmma, "UTMALDG", "SYNCS", "WARPGROUP"}
    if d.get("STREAM_K") == "1":
        return ops | {"ATOMG", "ACQBULK", "PREEXIT"}
    if spec.stage >= 1:
        ops.add("USETMAXREG")
    if int(d.get("CLUSTER_M", spec.cluster)) > 1:
        ops |= {"UCGABAR_ARV", "UCGABAR_WAIT"}
    if spec.tma_store and d["ELEM_D"] not in ("float", "int"):  # the TMA-store epilogue (16-bit D)
        ops |= {"STSM", "UTMASTG"}
    if spec.tma_store and d["ELEM_D"] == "float" and d.get("EPI_32BIT") == "1":  # fp32 D staged with st.shared
        ops.add("UTMASTG")
    if spec.pdl:  # launched with programmatic dependent launch: griddepcontrol.wait and .launch_dependents
        ops |= {"ACQBULK", "PREEXIT"}
    if d.get("BLOCK_SCALES") == "1":  # the producer's bulk copies of the scales (block_scales.cuh)
        ops.add("UBLKCP")
    if d.get("C_MATRIX") == "1" and d.get("D_TRANSPOSED", "0") == "0":  # C's rows hinted into L2 (hopper_epilogue.cuh)
        ops.add("UBLKPF")
    return ops


# Instructions each family must show in SASS (a set, or a function of (spec, defines) giving one).
EXPECTED = {
    "simt": {"FFMA"},
    "wmma": _wmma_expected,
    "mma_sync": _mma_sync_expected,
    "hopper": _hopper_expected,
}


def _archs(spec) -> tuple[str, ...]:
    """Targets a spec is compiled for: sm_90a-only kernels (wgmma, TMA) skip sm_80."""
    return tuple(a for a in ARCHS if int(a[3:5]) >= spec.min_arch)


def _build_id(build: tuple) -> str:
    spec, defines = build
    d = dict(defines)
    tile = "x".join(d[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K") if k in d)
    layouts = "rc"[int(d["A_LAYOUT"])] + "rc"[int(d["B_LAYOUT"])]
    out = "" if d["ELEM_D"] == d["ELEM_A"] else f"-to-{d['ELEM_D'].replace(' ', '')}"
    rows = "-rowwise" if d.get("SCALE_ROWWISE") == "1" else ""
    rows += "-cmatrix" if d.get("C_MATRIX") == "1" else ""
    return f"{spec.name}-{tile}-{layouts}-vec{d.get('VEC', '1')}-{d['ELEM_A'].replace(' ', '')}{out}{rows}"


CASES = [pytest.param(build, arch, id=f"{_build_id(build)}-{arch}")
         for build in BUILDS for arch in _archs(build[0])]


@pytest.mark.parametrize("build,arch", CASES)
def test_kernel_compiles_without_spills(build, arch):
    spec, defines = build
    cubin = jit.cubin(spec.source, defines, arch)
    usage = sass.resource_usage(cubin)
    code = sass.disassemble(cubin)
    assert not sass.has_local_memory(code), f"{spec.name} spills to local memory: {usage}"
    assert usage.get("LOCAL", 0) == 0 and usage.get("STACK", 0) == 0, usage
    mix = sass.instruction_mix(code)
    expected = EXPECTED[spec.family]
    for opcode in expected(spec, defines) if callable(expected) else expected:
        assert mix[opcode] > 0, f"{spec.name} has no {opcode} in its SASS"


def test_vectorized_builds_use_128_bit_loads():
    """VEC=4 must turn into LDG.E.128 (and the fragment reads into LDS.128, in the stages that tile through
    shared memory: simt_skinny loads straight into registers)."""
    for spec, defines in ALL_BUILDS:
        d = dict(defines)
        if d.get("VEC") == "4" and d["A_LAYOUT"] == "0" and d["B_LAYOUT"] == "0":
            code = sass.disassemble(jit.cubin(spec.source, defines, "sm_90a"))
            assert "LDG.E.128" in code, spec.name
            if spec.name != "simt_skinny":
                assert "LDS.128" in code, spec.name


def test_warp_tiling_fits_two_ctas_per_sm_on_hopper():
    """The final SIMT stage is tuned for 2 CTAs per SM on the H100: their registers fit the SM's 64K (at most
    128 a thread at 256 threads, 256 at 128)."""
    for spec, defines in ALL_BUILDS:
        d = dict(defines)
        if spec.name == "simt_warp_tiling" and d["VEC"] == "4":
            for arch in ("sm_90a",):
                regs = sass.resource_usage(jit.cubin(spec.source, defines, arch))["REG"]
                assert 2 * int(d["THREADS"]) * regs <= 65536, (d, regs)


def test_cluster_kernels_multicast_and_declare_their_cluster():
    """A cluster kernel's B loads are TMA multicasts, its slot releases reach the peer CTA, and the cubin
    carries the compile-time cluster shape the launcher relies on (grid a multiple of spec.cluster)."""
    found = False
    for spec, defines in BUILDS:
        d = dict(defines)
        if int(d.get("CLUSTER_M", 1)) == 1:
            continue
        found = True
        cubin = jit.cubin(spec.source, defines, "sm_90a")
        code = sass.disassemble(cubin)
        assert "UTMALDG.3D.MULTICAST" in code, spec.name
        assert "SYNCS.ARRIVE.TRANS64.RED" in code, spec.name  # arrivals on the peer's empty barriers
        # GPU-wide fences only where the cluster barrier (release) needs them, with the tail split where a
        # part's arrival releases its workspace slice (tail_split.cuh), and with split-K at its ranges' acq_rel
        # arrivals (split_k.cuh: an owner's and a partner's path): none per k-tile
        releases = (code.count("UCGABAR_ARV") + (1 if d.get("TAIL_SPLIT") == "1" else 0)
                    + (2 if int(d.get("SPLIT_K", 1)) > 1 else 0))
        assert code.count("MEMBAR.ALL.GPU") <= releases, spec.name
    assert found, "no cluster kernel registered"


def _gmma_gaps(code: str) -> list[list[str]]:
    """The instructions between consecutive wgmmas (HGMMA/QGMMA/IGMMA) of one batch (fewer than 40 apart)."""
    lines = [line for line in code.splitlines() if ";" in line]
    at = [i for i, line in enumerate(lines) if "GMMA." in line]
    return [lines[i + 1:j] for i, j in itertools.pairwise(at) if j - i < 40]


@pytest.mark.parametrize("name,precision,layouts", [("wgmma_tma_store", "bf16", "rr"),
                                                    ("wgmma_tma_store_kmajor", "fp8e4m3", "rc")])
def test_stage4_wgmma_descriptors_stay_in_uniform_registers(name, precision, layouts):
    """Between the wgmmas of a k-tile the descriptors advance by uniform adds (wgmma.cuh: addresses in
    16-byte units, the warpgroup index made warp-uniform): no register-to-uniform moves (R2UR) and a
    handful of instructions. Rebuilt per wgmma from byte addresses they cost ~15 instructions each in
    the fp8 main loop, between a k-tile's data arriving and its wgmmas (0.89x against 0.93-0.95x)."""
    spec = registry.get(name)
    dt = {"bf16": torch.bfloat16, "fp8e4m3": torch.float8_e4m3fn}[precision]
    cfg = spec.config(None, precision)  # the default tile: 128 x 256 (bf16), 128 x 128 (fp8)
    defines = launch._defines(spec, cfg, layouts, 1, dt, torch.bfloat16, precision)
    code = sass.disassemble(jit.cubin(spec.source, defines, "sm_90a"))
    gaps = _gmma_gaps(code)
    assert gaps, f"{name}: no wgmma batch found"
    for gap in gaps:
        assert not any("R2UR" in line for line in gap), f"{name}: descriptor moved into uniform registers per wgmma"
        # (15 in 128 x 256's first gap since the staged C, 10 before: the uniform-datapath setup of the k-tile's
        # descriptors and two predicate ops, where ptxas put them; the other gaps 0-5. A descriptor rebuilt per wgmma
        # is ~15 in every gap, with R2URs. The main loop's speed without C did not move: 2026-11-27-h100-explore-c-
        # staged-79af308-r*.json against ...-explore-c-prefetch-105a93e-r*.json, column "tc")
        assert len(gap) <= 15, f"{name}: {len(gap)} instructions between two wgmmas"


@pytest.mark.parametrize("elem", ["unsigned char", "unsigned short", "unsigned int"])
def test_staging_copies_compile(elem):
    """kernels/util/stage_copy.cu (tcgemm.staging): the tiled and row copies and split_tf32 (3xTF32's operand
    copies, tcgemm.emulation) compile for the Hopper GPU without local memory."""
    cubin = jit.compile_source("util/stage_copy.cu", jit.as_defines([("ELEM", elem)]), "sm_90a")
    text = sass.disassemble(cubin)
    for entry in ("stage_copy", "stage_rows", "split_tf32"):
        assert entry in text
    assert not sass.has_local_memory(text)
    assert sass.instruction_mix(text)["FADD"] > 0  # split_tf32's lo = x - hi
