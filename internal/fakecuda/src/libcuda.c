// A stand-in for the NVIDIA driver library, libcuda.so.1, for tests on
// machines without a GPU: nqueens-gpu opens it through NQUEENS_LIBCUDA
// (gpu/cudashim.c) and goes through its contexts, modules, streams,
// copies and launches as on a real driver. Device memory is host memory,
// so copies and memsets do what they say. The FAKECUDA_* variables choose
// its behaviour: MODE (ok, slow, stub, null), BUSY_S, FAIL, DEVICES, SMS,
// TASK_US, NODE_NS, VALUES, LOG and LOG_LOADS, each described where it is
// read and in docs/gpu.md ("Tests without a GPU: a stand-in driver").
// Symbols are the names cuda.h maps the API to (cuMemAlloc_v2 and so on),
// which are the ones the shim looks up.

#define _GNU_SOURCE
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *fk_mode(void) {
	const char *m = getenv("FAKECUDA_MODE");
	return m != NULL && m[0] != '\0' ? m : "ok";
}

static int fk_is(const char *mode) { return strcmp(fk_mode(), mode) == 0; }

// fk_fail returns the status FAKECUDA_FAIL asks of function name, or
// CUDA_SUCCESS.
static CUresult fk_fail(const char *name) {
	const char *f = getenv("FAKECUDA_FAIL");
	if (f == NULL) {
		return CUDA_SUCCESS;
	}
	size_t n = strlen(name);
	if (strncmp(f, name, n) != 0 || (f[n] != '\0' && f[n] != ':')) {
		return CUDA_SUCCESS;
	}
	return f[n] == ':' ? (CUresult)atoi(f + n + 1) : CUDA_ERROR_OUT_OF_MEMORY;
}

#define FK_FAIL(name)                                   \
	do {                                            \
		CUresult fk_r = fk_fail(name);          \
		if (fk_r != CUDA_SUCCESS) {             \
			return fk_r;                    \
		}                                       \
	} while (0)

static double fk_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// A stream is the time its last launch ends, and its GPU; the default
// stream is 0.
struct fk_stream {
	double busy_until;
	int dev;
};

// A context is its GPU; fk_cur is the calling thread's current one.
struct fk_ctx {
	int dev;
};

static __thread struct fk_ctx *fk_cur;

// fk_dev_busy[d] is the time GPU d's last timed launch ends.
#define FK_MAX_DEVICES 16
static double fk_dev_busy[FK_MAX_DEVICES];

static pthread_mutex_t fk_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fk_stream fk_default;

// fk_env is the number in environment variable name, or def.
static double fk_env(const char *name, double def) {
	const char *v = getenv(name);
	return v != NULL && v[0] != '\0' ? atof(v) : def;
}

// fk_devices is the number of GPUs: FAKECUDA_DEVICES, 1 to FK_MAX_DEVICES.
static int fk_devices(void) {
	int n = (int)fk_env("FAKECUDA_DEVICES", 1);
	return n < 1 ? 1 : n > FK_MAX_DEVICES ? FK_MAX_DEVICES : n;
}

static struct fk_stream *fk_stream_of(CUstream s) {
	return s == NULL ? &fk_default : (struct fk_stream *)s;
}

static double fk_busy_until(CUstream s) {
	pthread_mutex_lock(&fk_mu);
	double t = fk_stream_of(s)->busy_until;
	pthread_mutex_unlock(&fk_mu);
	return t;
}

static void fk_wait(double until) {
	for (double now = fk_now(); now < until; now = fk_now()) {
		double d = until - now;
		usleep(d > 0.1 ? 100000 : (useconds_t)(d * 1e6) + 1);
	}
}

// fk_latest is the end of the last launch on any stream.
static double fk_latest;

CUresult cuInit(unsigned int flags) {
	(void)flags;
	FK_FAIL("cuInit");
	return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v) {
	FK_FAIL("cuDriverGetVersion");
	*v = 12040;
	return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
	switch (e) {
	case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
	case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
	case CUDA_ERROR_LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
	case CUDA_ERROR_NOT_READY: *s = "CUDA_ERROR_NOT_READY"; break;
	default: return CUDA_ERROR_INVALID_VALUE; // the caller's own table
	}
	return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult e, const char **s) {
	(void)e;
	*s = "reported by the test driver (FAKECUDA)";
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n) {
	FK_FAIL("cuDeviceGetCount");
	*n = fk_devices();
	return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
	FK_FAIL("cuDeviceGet");
	if (ordinal < 0 || ordinal >= fk_devices()) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*d = ordinal;
	return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
	(void)d;
	snprintf(name, (size_t)len, "Fake GPU (FAKECUDA_MODE=%s)", fk_mode());
	return CUDA_SUCCESS;
}

// The attributes of a small Hopper-like GPU: 4 SMs (FAKECUDA_SMS).
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
	(void)d;
	FK_FAIL("cuDeviceGetAttribute");
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = (int)fk_env("FAKECUDA_SMS", 4); break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *v = 2048; break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 << 10; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 << 10; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *v = 228 << 10; break;
	case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
	(void)d;
	*bytes = (size_t)1 << 30;
	return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *c, unsigned int flags, CUdevice d) {
	(void)flags;
	FK_FAIL("cuCtxCreate_v2");
	struct fk_ctx *x = calloc(1, sizeof *x);
	x->dev = (int)d;
	fk_cur = x;
	*c = (CUcontext)x;
	return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
	FK_FAIL("cuCtxSynchronize");
	pthread_mutex_lock(&fk_mu);
	double t = fk_latest;
	pthread_mutex_unlock(&fk_mu);
	fk_wait(t);
	return CUDA_SUCCESS;
}

// Destroying a context waits for its work, as the driver does.
CUresult cuCtxDestroy_v2(CUcontext c) {
	(void)c;
	return cuCtxSynchronize();
}

CUresult cuCtxGetCurrent(CUcontext *c) {
	*c = (CUcontext)fk_cur;
	return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c) {
	fk_cur = (struct fk_ctx *)c;
	return CUDA_SUCCESS;
}

// A module is a copy of its PTX text; a function, a copy of its name.
// As the real driver, cuModuleGetFunction answers CUDA_ERROR_NOT_FOUND
// for a kernel that the module's PTX does not declare (.entry NAME(), and
// says so on stderr ("fakecuda: cuModuleGetFunction NAME: not found"), so
// that a test sees every lookup that compute-sanitizer would report as
// an API error.
// fk_entry finds the first kernel entry (.entry NAME) of the PTX text at
// or after p: it returns NAME's start and sets *len to its length, or
// returns NULL.
static const char *fk_entry(const char *p, size_t *len) {
	const char *e = strstr(p, ".entry ");
	if (e == NULL) {
		return NULL;
	}
	e += strlen(".entry ");
	while (*e == ' ' || *e == '\t') {
		e++;
	}
	*len = strcspn(e, "( \t\n");
	return e;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *o, void **v) {
	(void)n;
	(void)o;
	(void)v;
	FK_FAIL("cuModuleLoadDataEx");
	const char *ptx = image != NULL ? (const char *)image : "";
	if (getenv("FAKECUDA_LOG_LOADS") != NULL) {
		// The module's first kernel names it.
		size_t len = 0;
		const char *e = fk_entry(ptx, &len);
		fprintf(stderr, "fakecuda: cuModuleLoadDataEx %.*s\n", (int)len, e != NULL ? e : "");
	}
	*m = fk_is("null") ? NULL : (CUmodule)strdup(ptx);
	return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image) { return cuModuleLoadDataEx(m, image, 0, NULL, NULL); }

CUresult cuModuleUnload(CUmodule m) {
	free(m);
	return CUDA_SUCCESS;
}

// fk_declares reports whether the PTX text ptx has the entry name.
static int fk_declares(const char *ptx, const char *name) {
	size_t len;
	for (const char *e = fk_entry(ptx, &len); e != NULL; e = fk_entry(e + len, &len)) {
		if (len == strlen(name) && strncmp(e, name, len) == 0) {
			return 1;
		}
	}
	return 0;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
	FK_FAIL("cuModuleGetFunction");
	if (fk_is("null")) {
		*f = NULL;
		return CUDA_SUCCESS;
	}
	if (m == NULL || !fk_declares((const char *)m, name)) {
		fprintf(stderr, "fakecuda: cuModuleGetFunction %s: not found\n", name);
		return CUDA_ERROR_NOT_FOUND;
	}
	*f = (CUfunction)strdup(name);
	return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction f) {
	(void)f;
	FK_FAIL("cuFuncGetAttribute");
	switch (a) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *v = 768; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *v = 32; break;
	default: *v = 0; break;
	}
	return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
	(void)f;
	(void)a;
	(void)v;
	FK_FAIL("cuFuncSetAttribute");
	return CUDA_SUCCESS;
}

// Occupancy: 2048 threads an SM, and the shared memory of the SM.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f, int threads, size_t shared) {
	(void)f;
	FK_FAIL("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	int b = 2048 / threads;
	if (shared > 0 && (int)((228 << 10) / (shared + 1024)) < b) {
		b = (int)((228 << 10) / (shared + 1024));
	}
	*blocks = b;
	return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
	(void)flags;
	FK_FAIL("cuStreamCreate");
	struct fk_stream *x = fk_is("null") ? NULL : calloc(1, sizeof(struct fk_stream));
	if (x != NULL && fk_cur != NULL) {
		x->dev = fk_cur->dev;
	}
	*s = (CUstream)x;
	return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream s) {
	if (s != NULL) {
		fk_wait(fk_busy_until(s));
		free(s);
	}
	return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream s) {
	FK_FAIL("cuStreamQuery");
	return fk_now() < fk_busy_until(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream s) {
	FK_FAIL("cuStreamSynchronize");
	fk_wait(fk_busy_until(s));
	return CUDA_SUCCESS;
}

// Timed launches. With FAKECUDA_TASK_US=T a launch on a stream of its own
// takes the time of its tasks: T microseconds of one thread for each (an
// eightfold task of J levels, T × R^(J - L), R = FAKECUDA_LEVEL_RATIO,
// default 6: a search tree grows about 6 times a level; L =
// FAKECUDA_TASK_LEVELS, default 10); with FAKECUDA_NODE_NS=T (eightfold
// kernels only), T nanoseconds of one thread for each node of the task's
// search, which the stand-in then runs (fk_ef). The grid's threads share
// the tasks evenly: a launch lasts their time over min(tasks, threads),
// from when the GPU's launch before it ends.
static int fk_timed(void) { return fk_env("FAKECUDA_TASK_US", 0) > 0 || fk_env("FAKECUDA_NODE_NS", 0) > 0; }

// fk_pow is x to the integer power k.
static double fk_pow(double x, int k) {
	double p = 1;
	for (int i = 0; i < (k < 0 ? -k : k); i++) {
		p *= x;
	}
	return k < 0 ? 1 / p : p;
}

// fk_ef searches an eightfold task (tasks.Eightfold's words l, r, d and
// Meta word meta) and returns its completions, adding its nodes (the
// queens its loops place) to *nodes: at each level one child per free
// column, the rows to the next level 1 plus the skips at this level, the
// last level a test.
static uint64_t fk_ef(uint64_t l, uint64_t r, uint32_t d, uint32_t meta, uint64_t *nodes) {
	uint32_t free = ~((uint32_t)(l >> 32) | (uint32_t)r | d);
	int j = (int)(meta & 0xff);
	if (j <= 1) {
		return free != 0;
	}
	unsigned s = 1, skips[2] = {0xff, 0xff}, kept = 0;
	for (int i = 0; i < 2; i++) {
		unsigned k = meta >> (8 + 8 * i) & 0xff;
		if (k == 0) {
			s++;
		} else if (k != 0xff) {
			skips[kept++] = k - 1;
		}
	}
	uint32_t child = (uint32_t)(j - 1) | skips[0] << 8 | skips[1] << 16 | (meta & 0xff000000u);
	uint64_t c = 0;
	for (; free != 0; free &= free - 1) {
		uint32_t bit = free & -free;
		(*nodes)++;
		c += fk_ef((l | (uint64_t)bit << 32) << s, (r | bit) >> s, d | bit, child, nodes);
	}
	return c;
}

// Counting. With FAKECUDA_VALUES=count the eightfold kernels count: Σ
// weight × completions of their tasks into out[2], and with the _nodes
// twins the nodes into out[3], as the real kernels add them (the others
// count nothing). fk_eightfold does so for a launch of f with params and
// returns the threads' time of its tasks (fk_timed).
static double fk_eightfold(const char *f, void **params) {
	int count = *(int *)params[0];
	const uint64_t *left = (const uint64_t *)(uintptr_t)(*(CUdeviceptr *)params[1]);
	const uint64_t *right = (const uint64_t *)(uintptr_t)(*(CUdeviceptr *)params[2]);
	const uint32_t *down = (const uint32_t *)(uintptr_t)(*(CUdeviceptr *)params[3]);
	const uint32_t *meta = (const uint32_t *)(uintptr_t)(*(CUdeviceptr *)params[4]);
	uint64_t *out = (uint64_t *)(uintptr_t)(*(CUdeviceptr *)params[5]);
	const char *v = getenv("FAKECUDA_VALUES");
	int values = v != NULL && strcmp(v, "count") == 0;
	double node_ns = fk_env("FAKECUDA_NODE_NS", 0), task_us = fk_env("FAKECUDA_TASK_US", 0);
	double ratio = fk_env("FAKECUDA_LEVEL_RATIO", 6);
	int ref = (int)fk_env("FAKECUDA_TASK_LEVELS", 10);
	uint64_t total = 0, nodes = 0;
	double t = 0;
	for (int i = 0; i < count; i++) {
		if (values || node_ns > 0) {
			uint64_t n = 0;
			total += (meta[i] >> 24) * fk_ef(left[i], right[i], down[i], meta[i], &n);
			nodes += n;
			t += (double)n * node_ns * 1e-9;
		}
		t += task_us * 1e-6 * fk_pow(ratio, (int)(meta[i] & 0xff) - ref);
	}
	if (values) {
		out[2] += total;
		if (strstr(f, "_nodes") != NULL) {
			out[3] += nodes;
		}
	}
	return t;
}

// fk_log appends a line to FAKECUDA_LOG, if set.
static void fk_log(int dev, int tasks, double start, double end) {
	const char *path = getenv("FAKECUDA_LOG");
	if (path == NULL || path[0] == '\0') {
		return;
	}
	FILE *f = fopen(path, "a");
	if (f == NULL) {
		return;
	}
	fprintf(f, "launch %d %d %.6f %.6f\n", dev, tasks, start, end);
	fclose(f);
}

// fk_realtime is CLOCK_REALTIME in seconds, for FAKECUDA_LOG.
static double fk_realtime(void) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// fk_schedule makes stream s busy for the time of a launch of tasks tasks
// that runs for seconds once its GPU is free.
static void fk_schedule(CUstream s, int tasks, double seconds) {
	struct fk_stream *x = fk_stream_of(s);
	pthread_mutex_lock(&fk_mu);
	double now = fk_now(), start = fk_dev_busy[x->dev] > now ? fk_dev_busy[x->dev] : now;
	double end = start + seconds;
	fk_dev_busy[x->dev] = end;
	x->busy_until = end;
	if (end > fk_latest) {
		fk_latest = end;
	}
	pthread_mutex_unlock(&fk_mu);
	double wall = fk_realtime() - now;
	fk_log(x->dev, tasks, start + wall, end + wall);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
			unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params, void **extra) {
	(void)gy;
	(void)gz;
	(void)by;
	(void)bz;
	(void)shared;
	(void)extra;
	FK_FAIL("cuLaunchKernel");
	if (fk_is("stub")) {
		return CUDA_SUCCESS;
	}
	const char *name = f != NULL ? (const char *)f : "";
	// The task count's parameter: nq_eightfold*(count, ...),
	// nq_carry_frames*(n, count, ...), nq_symmetry_boards*(n, depth,
	// count, ...).
	int at = strncmp(name, "nq_carry", 8) == 0 ? 1 : strncmp(name, "nq_symmetry", 11) == 0 ? 2 : 0;
	int count = params != NULL ? *(int *)params[at] : 0;
	double t = 0;
	if (strncmp(name, "nq_eightfold", 12) == 0 && params != NULL) {
		t = fk_eightfold(name, params);
		// The dynamic kernels: every task is taken, and each thread
		// looks once more and finds none.
		if (strstr(name, "_static") == NULL) {
			unsigned int *next = (unsigned int *)(uintptr_t)(*(CUdeviceptr *)params[6]);
			*next += (unsigned int)count + gx * bx;
		}
	} else {
		t = count * fk_env("FAKECUDA_TASK_US", 0) * 1e-6;
	}
	if (s == NULL) { // the default stream: the program's self-test
		return CUDA_SUCCESS;
	}
	if (fk_is("slow")) {
		double until = fk_now() + fk_env("FAKECUDA_BUSY_S", 3600);
		pthread_mutex_lock(&fk_mu);
		fk_stream_of(s)->busy_until = until;
		if (until > fk_latest) {
			fk_latest = until;
		}
		pthread_mutex_unlock(&fk_mu);
	} else if (fk_timed()) {
		unsigned threads = gx * bx;
		fk_schedule(s, count, count > 0 ? t / (count < (int)threads ? count : (int)threads) : 0);
	}
	return CUDA_SUCCESS;
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
	*free = (size_t)1 << 30;
	*total = (size_t)1 << 30;
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
	FK_FAIL("cuMemAlloc_v2");
	*p = fk_is("null") ? 0 : (CUdeviceptr)(uintptr_t)calloc(1, bytes);
	return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **p, size_t bytes) {
	FK_FAIL("cuMemAllocHost_v2");
	*p = fk_is("null") ? NULL : calloc(1, bytes);
	return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *p) {
	free(p);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
	(void)s;
	FK_FAIL("cuMemcpyHtoDAsync_v2");
	memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
	(void)s;
	FK_FAIL("cuMemcpyDtoHAsync_v2");
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
	FK_FAIL("cuMemcpyDtoH_v2");
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

static void fk_memset32(CUdeviceptr dst, unsigned int v, size_t n) {
	unsigned int *p = (unsigned int *)(uintptr_t)dst;
	for (size_t i = 0; i < n; i++) {
		p[i] = v;
	}
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, CUstream s) {
	(void)s;
	FK_FAIL("cuMemsetD32Async");
	fk_memset32(dst, v, n);
	return CUDA_SUCCESS;
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int v, size_t n) {
	FK_FAIL("cuMemsetD32_v2");
	fk_memset32(dst, v, n);
	return CUDA_SUCCESS;
}
