/* What the two files of the fake NVML driver share (see README.md): the
 * scenario's types and the helpers every entry point uses. Not exported: the
 * library is built with hidden visibility and only API symbols are seen. */
#ifndef FAKE_NVML_H
#define FAKE_NVML_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define API __attribute__((visibility("default")))
#define MAX_GPUS 16
#define MAX_SEGMENTS 16
#define MAX_PROCS 64
#define MAX_LIST 1024
#define MIB (1024.0 * 1024.0)
#define MAX_EVENTS 16
#define MAX_MIG 7 /* NVML's most MIG devices per GPU (A100, H100) */

typedef int ret_t; /* NVML return codes */
enum { OK = 0, UNINIT = 1, INVALID = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6, INSUFFICIENT = 7,
       TIMEOUT = 10,
       DRIVER_NOT_LOADED = 9, LOST = 15, VERSION_MISMATCH = 25, UNKNOWN = 999 };

/* A value over time: constant, repeating segments, or a ramp that holds. */
typedef struct {
  enum { CONST, CYCLE, RAMP } kind;
  int n;
  double value[MAX_SEGMENTS], seconds[MAX_SEGMENTS], period;
} pattern;

typedef struct { unsigned pid; unsigned long long bytes; } proc;
typedef struct { proc p[MAX_PROCS]; int n; } proc_list;

/* Metrics that can be switched off per GPU with `unsupported=`. */
enum { F_UTIL, F_MEMORY, F_MEMORY_V2, F_POWER, F_POWER_LIMIT, F_ENERGY, F_TEMP, F_MEM_TEMP,
       F_SM_CLOCK, F_MEM_CLOCK, F_MAX_CLOCKS, F_FAN, F_PSTATE, F_REASONS, F_PCIE_LINK,
       F_PCIE_MAX, F_PCIE_THROUGHPUT, F_COMPUTE, F_GRAPHICS, F_MPS, F_PROC_UTIL, F_GPM, F_MIG, F_EVENTS, F_COUNT };

/* GPM metrics the fake computes: nvmlGpmMetricId_t and the scenario key. */
enum { GPM_METRICS = 9 };

/* An event the scenario delivers `at_s` seconds after its event set's creation. */
typedef struct {
  unsigned long long type, data;
  double at_s;
  unsigned gpu_instance, compute_instance;
} scripted_event;

/* A MIG device: its handle is a pointer to one of these. */
typedef struct mig_device {
  struct gpu *parent;
  int slot;
  char profile[32];
  double memory_mib;
  unsigned gpu_instance, compute_instance;
} mig_device;

typedef struct gpu {
  char name[96], uuid[96];
  unsigned pci_bus;
  double mem_total_mib, mem_reserved_mib, idle_w, w_per_util, power_limit_w, energy_start_j;
  double lost_after_s, max_sm_clock, max_mem_clock, pcie_gen_max, pcie_width_max;
  pattern util, mem_util, mem_used_mib, temp, mem_temp, sm_clock, mem_clock, fan, pstate,
      clock_reasons, pcie_gen, pcie_width, pcie_tx_kbs, pcie_rx_kbs;
  int mem_util_set;
  unsigned unsupported; /* bit per F_* */
  int gpm;              /* nvmlGpmQueryDeviceSupport's answer */
  int gpm_error, gpm_sample_error; /* what nvmlGpmMetricsGet / nvmlGpmSampleGet return */
  char gpm_unsupported[256];       /* metric ids answered "not supported" */
  pattern gpm_values[GPM_METRICS]; /* in the order of kGpmMetrics */
  proc_list lists[3];   /* compute, graphics, mps */
  proc_list process_util; /* PID:SM_PERCENT, in `bytes` */
  int add_parent, add_self, add_descendants;
  unsigned long long added_bytes;
  int growth, growth_max;
  atomic_int grown; /* synthetic compute processes added so far */
  /* Events and MIG: fake_nvml_events.c. */
  unsigned long long event_types; /* nvmlDeviceGetSupportedEventTypes */
  scripted_event events[MAX_EVENTS];
  int n_events;
  int mig_mode; /* nvmlDeviceGetMigMode's current (and pending) mode */
  mig_device migs[MAX_MIG];
  int n_migs;
} gpu;

typedef struct {
  int gpu_count, init_error;
  int event_wait_error; /* what nvmlEventSetWait_v2 returns instead, 0: none */
  char driver_version[80];
  double pcie_delay_ms, energy_delay_ms;
  gpu gpus[MAX_GPUS];
} config;

extern config cfg;
extern atomic_int init_count;

/* The old-driver build keeps the newer entry points out of the symbol table. */
#ifdef FAKE_NVML_OLD
#define MODERN static __attribute__((unused))
#else
#define MODERN API
#endif

int has_word(const char *list, const char *word);
double seconds_since_init(void);
void sleep_ms(double ms);
/* Common checks of every device call; `feature` < 0 when it cannot be turned off. */
ret_t check(const gpu *g, int feature);
ret_t copy_string(char *dst, unsigned length, const char *src);

/* fake_nvml_events.c: the events' and MIG's scenario keys (-1: bad value,
 * 1: not one of these keys) and MIG device handles. */
void events_mig_defaults(gpu *g);
int set_events_mig_key(gpu *g, const char *k, const char *v);
const mig_device *as_mig(const void *handle);

#endif
