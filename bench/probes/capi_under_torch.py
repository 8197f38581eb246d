# Usage on the GPU machine: python3 bench/probes/capi_under_torch.py LIBTESSERA LAUNCH_HELPER MODE
#   MODE plain: no PyTorch in the process; torch: PyTorch imported and its CUDA context made first;
#   torch-late: PyTorch imported after tessera's first call.
#   With LD_PRELOAD=PATH/syscall_counter.so it also counts what a call does in libc (the unwinder, mappings,
#   ioctls); with PROBE_LOOP_SECONDS=N it keeps calling at the end, for a debugger to sample.
"""Host time of a tessera C API call and of a bare launch from a library with a static CUDA runtime, from Python
through ctypes, with and without PyTorch in the process (session 12: the per-call gap of session 11)."""
import ctypes, sys, time

lib_path, helper_path, mode = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "torch":
    import torch
    torch.zeros(1, device="cuda"); torch.cuda.synchronize()
ts = ctypes.CDLL(lib_path)
h = ctypes.CDLL(helper_path)
h.probe_alloc.restype = ctypes.c_void_p
h.probe_alloc.argtypes = [ctypes.c_size_t]
h.probe_fill.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
h.probe_time_in_c.restype = ctypes.c_double
h.probe_time_in_c.argtypes = [ctypes.c_void_p, ctypes.c_int]
h.probe_time_rms_norm_in_c.restype = ctypes.c_double
h.probe_time_rms_norm_in_c.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_float, ctypes.c_void_p, ctypes.c_int]


class CTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("device", ctypes.c_int32),
                ("device_index", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64))]


rows, cols = 4, 4096
import random
bits = (ctypes.c_uint16 * (rows * cols))(*[0x3c00 + random.randrange(0x200) for _ in range(rows * cols)])
wbits = (ctypes.c_uint16 * cols)(*[0x3f80 + random.randrange(0x40) for _ in range(cols)])
dx, dw, dy = h.probe_alloc(rows * cols * 2), h.probe_alloc(cols * 2), h.probe_alloc(rows * cols * 2)
h.probe_fill(dx, bits, rows * cols * 2); h.probe_fill(dw, wbits, cols * 2)
xs, ws = (ctypes.c_int64 * 2)(rows, cols), (ctypes.c_int64 * 1)(cols)
tx, tw, ty = CTensor(dx, 2, 1, 0, 2, xs, None), CTensor(dw, 2, 1, 0, 1, ws, None), CTensor(dy, 2, 1, 0, 2, xs, None)
args = (ctypes.byref(tx), ctypes.byref(tw), ctypes.byref(ty), ctypes.c_float(1e-6), None)
assert ts.tessera_rms_norm(*args) == 0
if mode == "torch-late":
    import torch
    torch.zeros(1, device="cuda"); torch.cuda.synchronize()


def timed(what, fn, n=400):
    for _ in range(20): fn()
    h.probe_sync()
    idle = []
    for _ in range(n):
        h.probe_sync()
        t0 = time.perf_counter(); fn(); idle.append(time.perf_counter() - t0)
    idle.sort()
    h.probe_sync()
    t0 = time.perf_counter()
    for _ in range(n): fn()
    b2b = (time.perf_counter() - t0) / n
    h.probe_sync()
    print(f"{mode:10s} {what:40s} idle median {idle[n // 2] * 1e6:7.1f} us | back to back {b2b * 1e6:7.1f} us", flush=True)


timed("ctypes tessera_version", ts.tessera_version)
timed("ctypes empty launch (static cudart)", h.probe_launch_empty)
timed("ctypes empty launch + PDL", h.probe_launch_empty_pdl)
timed("ctypes tessera_rms_norm 4x4096 bf16", lambda: ts.tessera_rms_norm(*args))
fp = ctypes.cast(ts.tessera_rms_norm, ctypes.c_void_p).value
for what, f in [("empty launch", h.probe_launch_empty), ("empty launch + PDL", h.probe_launch_empty_pdl)]:
    h.probe_sync()
    print(f"{mode:10s} in C, {what:35s} back to back {h.probe_time_in_c(ctypes.cast(f, ctypes.c_void_p).value, 1000):7.1f} us", flush=True)
h.probe_sync()
print(f"{mode:10s} in C, {'tessera_rms_norm':35s} back to back "
      f"{h.probe_time_rms_norm_in_c(fp, ctypes.byref(tx), ctypes.byref(tw), ctypes.byref(ty), 1e-6, None, 1000):7.1f} us", flush=True)

# With syscall_counter.so preloaded: what one call does besides the launch (mappings, driver ioctls, page faults).
import os, resource
if "syscall_counter" in os.environ.get("LD_PRELOAD", ""):
    c = ctypes.CDLL(os.environ["LD_PRELOAD"])
    c.probe_counters_print.argtypes = [ctypes.c_char_p, ctypes.c_int]
    for what, fn in [("empty launch", lambda: h.probe_launch_empty()), ("tessera_rms_norm", lambda: ts.tessera_rms_norm(*args))]:
        h.probe_sync()
        faults0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        c.probe_counters_reset()
        for _ in range(200): fn()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults0
        c.probe_counters_print(f"{mode} {what} (minor faults {faults / 200:.1f})".encode(), 200)
        c.probe_sites_print()

# PROBE_LOOP_SECONDS=N: keep calling, so a debugger can take stack samples of the calls (cuda-gdb -p PID).
if os.environ.get("PROBE_LOOP_SECONDS"):
    print(f"looping, pid {os.getpid()}", flush=True)
    end = time.time() + float(os.environ["PROBE_LOOP_SECONDS"])
    while time.time() < end:
        for _ in range(1000): ts.tessera_rms_norm(*args)
        h.probe_sync()
