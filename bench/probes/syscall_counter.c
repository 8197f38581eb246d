/* LD_PRELOAD interposer for capi_under_torch.py: counts and times the libc calls a C API call makes (mappings,
 * driver ioctls), to find host time that is not the launch itself.
 * Built here: gcc -O2 -shared -fPIC bench/probes/syscall_counter.c -o syscall_counter.so -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <link.h>
#include <time.h>

extern void* __libc_malloc(size_t);
extern void __libc_free(void*);

enum { MMAP, MUNMAP, IOCTL, MADVISE, MPROTECT, PHDR, FIND_OBJECT, GETENV, MALLOC, FREE, COUNTERS };
static const char* names[COUNTERS] = {"mmap", "munmap", "ioctl", "madvise", "mprotect", "dl_iterate_phdr",
                                      "_dl_find_object", "getenv", "malloc", "free"};
static unsigned long long calls[COUNTERS], nanos[COUNTERS];

static unsigned long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}
#define REAL(name, ...)                 \
  typedef __VA_ARGS__;                   \
  static name##_fn real_##name;          \
  if (!real_##name) real_##name = (name##_fn)dlsym(RTLD_NEXT, #name)

void probe_counters_reset(void);
void probe_counters_print(const char* what, int per) {
  printf("%-40s per call:", what);
  for (int i = 0; i < COUNTERS; ++i)
    if (calls[i]) printf(" %s %.1f (%.1f us)", names[i], (double)calls[i] / per, nanos[i] / 1e3 / per);
  printf("\n");
  fflush(stdout);
}

void* mmap(void* a, size_t n, int prot, int flags, int fd, off_t off) {
  REAL(mmap, void* (*mmap_fn)(void*, size_t, int, int, int, off_t));
  unsigned long long t0 = now_ns();
  void* p = real_mmap(a, n, prot, flags, fd, off);
  nanos[MMAP] += now_ns() - t0; calls[MMAP]++;
  return p;
}
int munmap(void* a, size_t n) {
  REAL(munmap, int (*munmap_fn)(void*, size_t));
  unsigned long long t0 = now_ns();
  int r = real_munmap(a, n);
  nanos[MUNMAP] += now_ns() - t0; calls[MUNMAP]++;
  return r;
}
int madvise(void* a, size_t n, int advice) {
  REAL(madvise, int (*madvise_fn)(void*, size_t, int));
  unsigned long long t0 = now_ns();
  int r = real_madvise(a, n, advice);
  nanos[MADVISE] += now_ns() - t0; calls[MADVISE]++;
  return r;
}
int mprotect(void* a, size_t n, int prot) {
  REAL(mprotect, int (*mprotect_fn)(void*, size_t, int));
  unsigned long long t0 = now_ns();
  int r = real_mprotect(a, n, prot);
  nanos[MPROTECT] += now_ns() - t0; calls[MPROTECT]++;
  return r;
}
int ioctl(int fd, unsigned long request, ...) {
  REAL(ioctl, int (*ioctl_fn)(int, unsigned long, ...));
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  unsigned long long t0 = now_ns();
  int r = real_ioctl(fd, request, arg);
  nanos[IOCTL] += now_ns() - t0; calls[IOCTL]++;
  return r;
}

/* The unwinder's searches for a frame's object: many per call mean exceptions thrown and caught. */
int dl_iterate_phdr(int (*cb)(struct dl_phdr_info*, size_t, void*), void* data) {
  REAL(dl_iterate_phdr, int (*dl_iterate_phdr_fn)(int (*)(struct dl_phdr_info*, size_t, void*), void*));
  unsigned long long t0 = now_ns();
  int r = real_dl_iterate_phdr(cb, data);
  nanos[PHDR] += now_ns() - t0; calls[PHDR]++;
  return r;
}
/* Which code is unwound, and who unwinds it: the object and symbol of the pc asked about, and the caller. */
#define SITES 64
static struct { const void* key; unsigned long long n; } unwound[SITES], unwinders[SITES];
static void tally(typeof(unwound) table, const void* key) {
  for (int i = 0; i < SITES; ++i) {
    if (table[i].key == key) { table[i].n++; return; }
    if (!table[i].key) { table[i].key = key; table[i].n = 1; return; }
  }
}
static void print_sites(const char* title, typeof(unwound) table) {
  for (int i = 0; i < SITES && table[i].key; ++i) {
    Dl_info info;
    memset(&info, 0, sizeof info);
    dladdr(table[i].key, &info);
    const void* base = info.dli_sname ? info.dli_saddr : info.dli_fbase;  /* symbol + offset, or file offset */
    printf("  %s %8llu  %s : %s +0x%lx\n", title, table[i].n, info.dli_fname ? info.dli_fname : "?",
           info.dli_sname ? info.dli_sname : "(file)", (unsigned long)((const char*)table[i].key - (const char*)base));
  }
}
void probe_counters_reset(void) {
  memset(calls, 0, sizeof calls); memset(nanos, 0, sizeof nanos);
  memset(unwound, 0, sizeof unwound); memset(unwinders, 0, sizeof unwinders);
}
void probe_sites_print(void) { print_sites("unwound", unwound); print_sites("unwinder", unwinders); fflush(stdout); }

int _dl_find_object(void* pc, struct dl_find_object* out) {
  REAL(_dl_find_object, int (*_dl_find_object_fn)(void*, struct dl_find_object*));
  tally(unwound, pc);
  tally(unwinders, __builtin_return_address(0));
  unsigned long long t0 = now_ns();
  int r = real__dl_find_object(pc, out);
  nanos[FIND_OBJECT] += now_ns() - t0; calls[FIND_OBJECT]++;
  return r;
}
char* getenv(const char* name) {
  REAL(getenv, char* (*getenv_fn)(const char*));
  unsigned long long t0 = now_ns();
  char* r = real_getenv(name);
  nanos[GETENV] += now_ns() - t0; calls[GETENV]++;
  return r;
}
/* Counted through glibc's own entry points, so that no dlsym runs inside malloc. */
void* malloc(size_t n) { calls[MALLOC]++; return __libc_malloc(n); }
void free(void* p) { if (p) calls[FREE]++; __libc_free(p); }
