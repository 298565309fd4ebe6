/* A fake libnvidia-ml for tests: the NVML entry points gpuwatch calls, with
 * values scripted by a scenario (see README.md). Built twice: as a modern
 * driver, and with FAKE_NVML_OLD as a driver that predates every versioned
 * symbol, so the backend's fallbacks are exercised without a GPU. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_nvml.h"

/* Metrics that can be switched off per GPU with `unsupported=`. */
static const char *const kFeatureNames[] = {
    "util", "memory", "memory_v2", "power", "power_limit", "energy", "temp", "mem_temp",
    "sm_clock", "mem_clock", "max_clocks", "fan", "pstate", "clock_reasons", "pcie_link",
    "pcie_max", "pcie_throughput", "compute_processes", "graphics_processes", "mps_processes",
    "process_util", "gpm", "mig", "events"};
static const struct { unsigned id; const char *key; } kGpmMetrics[GPM_METRICS] = {
    {2, "sm_active"}, {3, "sm_occupancy"}, {5, "tensor_active"}, {10, "dram_bw_util"},
    {11, "fp64_active"}, {12, "fp32_active"}, {13, "fp16_active"},
    {60, "nvlink_rx_mibs"}, {61, "nvlink_tx_mibs"}};

config cfg;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
atomic_int init_count;
static struct timespec init_time;

/* ---- patterns ---------------------------------------------------------- */

static double number(const char *s) {
  if (strncmp(s, "busy", 4) == 0) return 100;
  if (strncmp(s, "idle", 4) == 0) return 0;
  return strtod(s, NULL); /* also takes 0x hex, for clock-event masks */
}

static int parse_pattern(pattern *p, const char *s) {
  memset(p, 0, sizeof *p);
  if (strncmp(s, "ramp:", 5) == 0) {
    p->kind = RAMP;
    return sscanf(s + 5, "%lf:%lf:%lf", &p->value[0], &p->value[1], &p->seconds[0]) == 3 &&
                   p->seconds[0] > 0 ? 0 : -1;
  }
  if (!strchr(s, ':')) {
    p->kind = CONST;
    p->value[0] = number(s);
    return 0;
  }
  p->kind = CYCLE;
  for (const char *seg = s; seg && *seg && p->n < MAX_SEGMENTS; ++p->n) {
    const char *colon = strchr(seg, ':');
    if (!colon) return -1;
    p->value[p->n] = number(seg);
    p->seconds[p->n] = strtod(colon + 1, NULL);
    if (p->seconds[p->n] <= 0) return -1;
    p->period += p->seconds[p->n];
    seg = strchr(colon, ',');
    if (seg) ++seg;
  }
  return 0;
}

static double pattern_at(const pattern *p, double t) {
  if (p->kind == CONST) return p->value[0];
  if (p->kind == RAMP) {
    double f = t >= p->seconds[0] ? 1.0 : t / p->seconds[0];
    return p->value[0] + (p->value[1] - p->value[0]) * f;
  }
  double in = fmod(t, p->period);
  for (int i = 0; i < p->n; ++i) {
    if (in < p->seconds[i]) return p->value[i];
    in -= p->seconds[i];
  }
  return p->value[p->n - 1];
}

/* Exact integral from 0 to t, so the energy counter matches the power. */
static double pattern_integral(const pattern *p, double t) {
  if (p->kind == CONST) return p->value[0] * t;
  if (p->kind == RAMP) {
    double a = p->value[0], b = p->value[1], s = p->seconds[0];
    if (t < s) return a * t + (b - a) * t * t / (2 * s);
    return (a + b) / 2 * s + b * (t - s);
  }
  double per_period = 0;
  for (int i = 0; i < p->n; ++i) per_period += p->value[i] * p->seconds[i];
  double periods = floor(t / p->period), in = t - periods * p->period, sum = periods * per_period;
  for (int i = 0; i < p->n && in > 0; ++i) {
    double d = in < p->seconds[i] ? in : p->seconds[i];
    sum += p->value[i] * d;
    in -= d;
  }
  return sum;
}

/* ---- configuration ----------------------------------------------------- */

static void set_defaults(void) {
  memset(&cfg, 0, sizeof cfg);
  cfg.gpu_count = 2;
  snprintf(cfg.driver_version, sizeof cfg.driver_version, "580.95.05");
  cfg.pcie_delay_ms = 20; /* REFERENCE.md: PCIe throughput samples ~20 ms */
  cfg.energy_delay_ms = 4; /* REFERENCE.md: energy counter took ~4 ms on an H200 */
  for (int i = 0; i < MAX_GPUS; ++i) {
    gpu *g = &cfg.gpus[i];
    /* An H100 SXM 80GB as NVML reports it. */
    snprintf(g->name, sizeof g->name, "NVIDIA H100 80GB HBM3");
    snprintf(g->uuid, sizeof g->uuid, "GPU-fa4e0000-0000-4000-8000-0000000000%02x", i);
    g->pci_bus = 0x18 + 8 * (unsigned)i;
    g->mem_total_mib = 81559;
    g->mem_reserved_mib = 512; /* illustrative: drivers reserve a few hundred MiB */
    g->power_limit_w = 700;
    g->max_sm_clock = 1980;
    g->max_mem_clock = 2619;
    g->pcie_gen_max = 5;
    g->pcie_width_max = 16;
    /* REFERENCE.md's H200: ~120 W idle, ~693 W at 97 %; 5.8 W/% reaches 700 W at 100 %. */
    g->idle_w = 120;
    g->w_per_util = 5.8;
    g->energy_start_j = 100000; /* the counter runs since driver load, not from zero */
    g->lost_after_s = -1;
    g->added_bytes = 1ULL << 30;
    g->growth_max = 256;
    parse_pattern(&g->temp, "34");
    parse_pattern(&g->mem_temp, "42");
    parse_pattern(&g->sm_clock, "1980");
    parse_pattern(&g->mem_clock, "2619");
    parse_pattern(&g->fan, "30");
    parse_pattern(&g->pcie_gen, "5");
    parse_pattern(&g->pcie_width, "16");
    parse_pattern(&g->pcie_tx_kbs, "1000");
    parse_pattern(&g->pcie_rx_kbs, "2000");
    events_mig_defaults(g);
  }
}

static int parse_procs(proc_list *l, const char *s) {
  l->n = 0;
  while (*s && l->n < MAX_PROCS) {
    char *end;
    proc *p = &l->p[l->n++];
    p->pid = (unsigned)strtoul(s, &end, 10);
    if (*end != ':') return -1;
    p->bytes = strncmp(end + 1, "na", 2) == 0 ? ~0ULL : strtoull(end + 1, &end, 10);
    s = strchr(end, ',');
    if (!s) break;
    ++s;
  }
  return 0;
}

int has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)) != NULL; p += n) {
    if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ',')) return 1;
  }
  return 0;
}

static int set_gpu_key(gpu *g, const char *k, const char *v) {
  struct { const char *key; pattern *p; } patterns[] = {
      {"util", &g->util}, {"mem_util", &g->mem_util}, {"mem_used_mib", &g->mem_used_mib},
      {"temp_c", &g->temp}, {"mem_temp_c", &g->mem_temp}, {"sm_clock_mhz", &g->sm_clock},
      {"mem_clock_mhz", &g->mem_clock}, {"fan_percent", &g->fan}, {"pstate", &g->pstate},
      {"clock_reasons", &g->clock_reasons}, {"pcie_gen", &g->pcie_gen},
      {"pcie_width", &g->pcie_width}, {"pcie_tx_kbs", &g->pcie_tx_kbs},
      {"pcie_rx_kbs", &g->pcie_rx_kbs}};
  struct { const char *key; double *d; } numbers[] = {
      {"memory_total_mib", &g->mem_total_mib}, {"memory_reserved_mib", &g->mem_reserved_mib},
      {"idle_w", &g->idle_w}, {"w_per_util", &g->w_per_util},
      {"power_limit_w", &g->power_limit_w}, {"energy_start_j", &g->energy_start_j},
      {"lost_after_s", &g->lost_after_s}, {"max_sm_clock_mhz", &g->max_sm_clock},
      {"max_mem_clock_mhz", &g->max_mem_clock}, {"pcie_gen_max", &g->pcie_gen_max},
      {"pcie_width_max", &g->pcie_width_max}};
  for (size_t i = 0; i < sizeof patterns / sizeof *patterns; ++i) {
    if (strcmp(k, patterns[i].key) == 0) {
      if (patterns[i].p == &g->mem_util) g->mem_util_set = 1;
      return parse_pattern(patterns[i].p, v);
    }
  }
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; ++i) {
    if (strcmp(k, numbers[i].key) == 0) return *numbers[i].d = strtod(v, NULL), 0;
  }
  for (int i = 0; i < GPM_METRICS; ++i) {
    if (strcmp(k, kGpmMetrics[i].key) == 0) return parse_pattern(&g->gpm_values[i], v);
  }
  if (strcmp(k, "gpm") == 0) return g->gpm = atoi(v), 0;
  if (strcmp(k, "gpm_error") == 0) return g->gpm_error = atoi(v), 0;
  if (strcmp(k, "gpm_sample_error") == 0) return g->gpm_sample_error = atoi(v), 0;
  if (strcmp(k, "gpm_unsupported") == 0)
    return snprintf(g->gpm_unsupported, sizeof g->gpm_unsupported, "%s", v), 0;
  if (strcmp(k, "name") == 0) return snprintf(g->name, sizeof g->name, "%s", v), 0;
  if (strcmp(k, "uuid") == 0) return snprintf(g->uuid, sizeof g->uuid, "%s", v), 0;
  if (strcmp(k, "pci_bus") == 0) return g->pci_bus = (unsigned)strtoul(v, NULL, 16), 0;
  if (strcmp(k, "processes") == 0) return parse_procs(&g->lists[0], v);
  if (strcmp(k, "graphics_processes") == 0) return parse_procs(&g->lists[1], v);
  if (strcmp(k, "mps_processes") == 0) return parse_procs(&g->lists[2], v);
  if (strcmp(k, "process_util") == 0) return parse_procs(&g->process_util, v);
  if (strcmp(k, "added_process_bytes") == 0) return g->added_bytes = strtoull(v, NULL, 10), 0;
  if (strcmp(k, "process_growth") == 0) return g->growth = atoi(v), 0;
  if (strcmp(k, "process_growth_max") == 0) return g->growth_max = atoi(v), 0;
  if (strcmp(k, "add_processes") == 0) {
    g->add_parent = has_word(v, "parent");
    g->add_self = has_word(v, "self");
    g->add_descendants = has_word(v, "descendants");
    return 0;
  }
  if (strcmp(k, "unsupported") == 0) {
    g->unsupported = 0;
    for (int f = 0; f < F_COUNT; ++f) {
      if (has_word(v, kFeatureNames[f])) g->unsupported |= 1u << f;
    }
    return 0;
  }
  int rc = set_events_mig_key(g, k, v);
  return rc == 1 ? -1 : rc;
}

static int set_key(const char *k, const char *v) {
  if (strcmp(k, "gpu_count") == 0) {
    cfg.gpu_count = atoi(v);
    return cfg.gpu_count >= 0 && cfg.gpu_count <= MAX_GPUS ? 0 : -1;
  }
  if (strcmp(k, "init_error") == 0) return cfg.init_error = atoi(v), 0;
  if (strcmp(k, "event_wait_error") == 0) return cfg.event_wait_error = atoi(v), 0;
  if (strcmp(k, "driver_version") == 0)
    return snprintf(cfg.driver_version, sizeof cfg.driver_version, "%s", v), 0;
  if (strcmp(k, "pcie_delay_ms") == 0) return cfg.pcie_delay_ms = strtod(v, NULL), 0;
  if (strcmp(k, "energy_delay_ms") == 0) return cfg.energy_delay_ms = strtod(v, NULL), 0;
  if (strcmp(k, "gpm") == 0) { /* shorthand for gpu*.gpm */
    for (int i = 0; i < MAX_GPUS; ++i) cfg.gpus[i].gpm = atoi(v);
    return 0;
  }
  if (strncmp(k, "gpu*.", 5) == 0) {
    for (int i = 0; i < MAX_GPUS; ++i) {
      if (set_gpu_key(&cfg.gpus[i], k + 5, v) != 0) return -1;
    }
    return 0;
  }
  char *dot;
  long i = strncmp(k, "gpu", 3) == 0 ? strtol(k + 3, &dot, 10) : -1;
  if (i < 0 || i >= MAX_GPUS || *dot != '.') return -1;
  return set_gpu_key(&cfg.gpus[i], dot + 1, v);
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') ++s;
  char *e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) *--e = '\0';
  return s;
}

/* `text` holds key=value entries, one per line (or per `separators`). */
static int apply(char *text, const char *separators, const char *origin) {
  for (char *save = NULL, *line = strtok_r(text, separators, &save); line;
       line = strtok_r(NULL, separators, &save)) {
    line = trim(line);
    if (*line == '\0' || *line == '#') continue;
    char *eq = strchr(line, '=');
    if (eq) *eq = '\0';
    if (!eq || set_key(trim(line), trim(eq + 1)) != 0) {
      fprintf(stderr, "fake_nvml: %s: bad entry '%s%s%s'\n", origin, line, eq ? "=" : "",
              eq ? eq + 1 : "");
      return -1;
    }
  }
  return 0;
}

static int configure(void) {
  set_defaults();
  const char *path = getenv("FAKE_NVML_SCENARIO");
  if (path && *path) {
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "fake_nvml: cannot open %s\n", path), -1;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    if (apply(text, "\n", path) != 0) return -1;
  }
  const char *inline_set = getenv("FAKE_NVML_SET");
  if (inline_set && *inline_set) {
    char *copy = strdup(inline_set);
    int rc = apply(copy, ";\n", "FAKE_NVML_SET");
    free(copy);
    if (rc != 0) return -1;
  }
  for (int i = 0; i < MAX_GPUS; ++i) atomic_store(&cfg.gpus[i].grown, 0);
  return 0;
}

/* ---- helpers for the entry points -------------------------------------- */

double seconds_since_init(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - init_time.tv_sec) + (double)(now.tv_nsec - init_time.tv_nsec) * 1e-9;
}

void sleep_ms(double ms) {
  if (ms <= 0) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000) * 1e6)};
  nanosleep(&ts, NULL);
}

static unsigned uround(double v) { return v <= 0 ? 0u : (unsigned)llround(v); }

static double util_at(const gpu *g, double t) { return pattern_at(&g->util, t); }

ret_t check(const gpu *g, int feature) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  uintptr_t at = (uintptr_t)g, first = (uintptr_t)cfg.gpus;
  if (at < first || at >= first + sizeof(gpu) * (size_t)cfg.gpu_count) return INVALID;
  if ((at - first) % sizeof(gpu) != 0) return INVALID; /* inside a gpu: a MIG handle */
  if (g->lost_after_s >= 0 && seconds_since_init() >= g->lost_after_s) return LOST;
  if (feature >= 0 && (g->unsupported & (1u << feature))) return NOT_SUPPORTED;
  return OK;
}

#define CHECK(g, feature, out)              \
  do {                                      \
    ret_t rc_ = check((g), (feature));      \
    if (rc_ != OK) return rc_;              \
    if (!(out)) return INVALID;             \
  } while (0)

ret_t copy_string(char *dst, unsigned length, const char *src) {
  if (!dst) return INVALID;
  if (strlen(src) + 1 > length) return INSUFFICIENT;
  memcpy(dst, src, strlen(src) + 1);
  return OK;
}

/* ---- the NVML entry points --------------------------------------------- */


static ret_t init(void) {
  pthread_mutex_lock(&init_lock);
  ret_t rc = OK;
  if (atomic_load(&init_count) == 0) {
    if (configure() != 0) rc = UNKNOWN;
    else if (cfg.init_error != 0) rc = cfg.init_error;
    else clock_gettime(CLOCK_MONOTONIC, &init_time);
  }
  if (rc == OK) atomic_fetch_add(&init_count, 1);
  pthread_mutex_unlock(&init_lock);
  return rc;
}
MODERN ret_t nvmlInit_v2(void) { return init(); }
API ret_t nvmlInit(void) { return init(); }

API ret_t nvmlShutdown(void) {
  pthread_mutex_lock(&init_lock);
  ret_t rc = atomic_load(&init_count) == 0 ? UNINIT : OK;
  if (rc == OK) atomic_fetch_sub(&init_count, 1);
  pthread_mutex_unlock(&init_lock);
  return rc;
}

API const char *nvmlErrorString(ret_t rc) {
  switch (rc) {
    case OK: return "Success";
    case UNINIT: return "Uninitialized";
    case INVALID: return "Invalid Argument";
    case NOT_SUPPORTED: return "Not Supported";
    case INSUFFICIENT: return "Insufficient Size";
    case DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case LOST: return "GPU is lost";
    case VERSION_MISMATCH: return "Argument version mismatch";
    default: return "Unknown Error";
  }
}

API ret_t nvmlSystemGetDriverVersion(char *out, unsigned length) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  return copy_string(out, length, cfg.driver_version);
}

static ret_t count(unsigned *n) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (!n) return INVALID;
  *n = (unsigned)cfg.gpu_count;
  return OK;
}
MODERN ret_t nvmlDeviceGetCount_v2(unsigned *n) { return count(n); }
API ret_t nvmlDeviceGetCount(unsigned *n) { return count(n); }

static ret_t handle(unsigned i, gpu **out) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (i >= (unsigned)cfg.gpu_count || !out) return INVALID;
  ret_t rc = check(&cfg.gpus[i], -1);
  if (rc == OK) *out = &cfg.gpus[i];
  return rc;
}
MODERN ret_t nvmlDeviceGetHandleByIndex_v2(unsigned i, gpu **out) { return handle(i, out); }
API ret_t nvmlDeviceGetHandleByIndex(unsigned i, gpu **out) { return handle(i, out); }

API ret_t nvmlDeviceGetName(gpu *g, char *out, unsigned length) {
  const mig_device *m = as_mig(g);
  if (m) {
    char name[160];
    snprintf(name, sizeof name, "%s MIG %s", m->parent->name, m->profile);
    return copy_string(out, length, name);
  }
  CHECK(g, -1, out);
  return copy_string(out, length, g->name);
}

API ret_t nvmlDeviceGetUUID(gpu *g, char *out, unsigned length) {
  const mig_device *m = as_mig(g);
  if (m) {
    char uuid[96];
    snprintf(uuid, sizeof uuid, "MIG-fa4e0000-0000-4000-8000-%010x%02x",
             (unsigned)(m->parent - cfg.gpus), (unsigned)m->slot);
    return copy_string(out, length, uuid);
  }
  CHECK(g, -1, out);
  return copy_string(out, length, g->uuid);
}

/* The _v2/_v3 layout. The plain call writes a 52-byte older one that shares
 * everything before `bus_id` (its 16-byte bus id first) and ends in reserved
 * words; it must not be written past. */
typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} pci_info;
enum { PCI_V1_SIZE = 52 };

static ret_t pci(gpu *g, void *out, size_t size) {
  CHECK(g, -1, out);
  pci_info p = {.bus = g->pci_bus, .pci_device_id = 0x233010DEu}; /* H100 SXM5, NVIDIA */
  snprintf(p.bus_id_legacy, sizeof p.bus_id_legacy, "0000:%02X:00.0", g->pci_bus & 0xff);
  snprintf(p.bus_id, sizeof p.bus_id, "00000000:%02X:00.0", g->pci_bus & 0xff);
  memset(out, 0, size);
  memcpy(out, &p, size < sizeof p ? offsetof(pci_info, bus_id) : sizeof p);
  return OK;
}
MODERN ret_t nvmlDeviceGetPciInfo_v3(gpu *g, pci_info *p) { return pci(g, p, sizeof *p); }
MODERN ret_t nvmlDeviceGetPciInfo_v2(gpu *g, pci_info *p) { return pci(g, p, sizeof *p); }
API ret_t nvmlDeviceGetPciInfo(gpu *g, void *p) { return pci(g, p, PCI_V1_SIZE); }

/* A MIG device answers where its GPU does. */
static const gpu *checked_gpu(const gpu *g) {
  const mig_device *m = as_mig(g);
  return m ? m->parent : g;
}

typedef struct { unsigned long long total, free, used; } memory_v1;
typedef struct { unsigned version; unsigned long long total, reserved, free, used; } memory_v2;

static void memory(const gpu *g, unsigned long long *total, unsigned long long *reserved,
                   unsigned long long *used) {
  const mig_device *m = as_mig(g);
  if (m) { /* a MIG device: its own slice, nothing allocated */
    *total = (unsigned long long)(m->memory_mib * MIB);
    *reserved = *used = 0;
    return;
  }
  *total = (unsigned long long)(g->mem_total_mib * MIB);
  *reserved = (unsigned long long)(g->mem_reserved_mib * MIB);
  *used = (unsigned long long)(pattern_at(&g->mem_used_mib, seconds_since_init()) * MIB);
}

MODERN ret_t nvmlDeviceGetMemoryInfo_v2(gpu *g, memory_v2 *m) {
  CHECK(checked_gpu(g), F_MEMORY, m);
  if (g->unsupported & (1u << F_MEMORY_V2)) return NOT_SUPPORTED;
  if (m->version != ((unsigned)sizeof(memory_v2) | 2u << 24)) return VERSION_MISMATCH;
  memory(g, &m->total, &m->reserved, &m->used);
  m->free = m->total - m->reserved - m->used;
  return OK;
}

/* v1 counts the driver's reservation as used. */
API ret_t nvmlDeviceGetMemoryInfo(gpu *g, memory_v1 *m) {
  CHECK(checked_gpu(g), F_MEMORY, m);
  unsigned long long reserved;
  memory(g, &m->total, &reserved, &m->used);
  m->used += reserved;
  m->free = m->total - m->used;
  return OK;
}

typedef struct { unsigned gpu, memory; } utilization;
API ret_t nvmlDeviceGetUtilizationRates(gpu *g, utilization *u) {
  CHECK(g, F_UTIL, u);
  double t = seconds_since_init(), busy = util_at(g, t);
  u->gpu = uround(busy);
  u->memory = uround(g->mem_util_set ? pattern_at(&g->mem_util, t) : busy / 2);
  return OK;
}

/* Entry points that return one unsigned computed from the GPU `g` and the
 * seconds since nvmlInit `t`. */
#define UNSIGNED_GETTER(symbol, feature, expression)        \
  API ret_t symbol(gpu *g, unsigned *out) {                 \
    CHECK(g, feature, out);                                 \
    double t = seconds_since_init();                        \
    (void)t;                                                \
    *out = uround(expression);                              \
    return OK;                                              \
  }

/* Instantaneous power, so that tests can predict it exactly. */
UNSIGNED_GETTER(nvmlDeviceGetPowerUsage, F_POWER, (g->idle_w + g->w_per_util * util_at(g, t)) * 1000)
UNSIGNED_GETTER(nvmlDeviceGetEnforcedPowerLimit, F_POWER_LIMIT, g->power_limit_w * 1000)
UNSIGNED_GETTER(nvmlDeviceGetFanSpeed, F_FAN, pattern_at(&g->fan, t))
UNSIGNED_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, F_PCIE_LINK, pattern_at(&g->pcie_gen, t))
UNSIGNED_GETTER(nvmlDeviceGetCurrPcieLinkWidth, F_PCIE_LINK, pattern_at(&g->pcie_width, t))
UNSIGNED_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, F_PCIE_MAX, g->pcie_gen_max)
UNSIGNED_GETTER(nvmlDeviceGetMaxPcieLinkWidth, F_PCIE_MAX, g->pcie_width_max)

/* The integral of the power above, in mJ. */
MODERN ret_t nvmlDeviceGetTotalEnergyConsumption(gpu *g, unsigned long long *mj) {
  CHECK(g, F_ENERGY, mj);
  sleep_ms(cfg.energy_delay_ms);
  double t = seconds_since_init();
  double joules = g->energy_start_j + g->idle_w * t + g->w_per_util * pattern_integral(&g->util, t);
  *mj = (unsigned long long)floor(joules * 1000);
  return OK;
}

API ret_t nvmlDeviceGetTemperature(gpu *g, int sensor, unsigned *c) {
  CHECK(g, F_TEMP, c);
  if (sensor != 0) return INVALID;
  *c = uround(pattern_at(&g->temp, seconds_since_init()));
  return OK;
}

typedef struct {
  unsigned field_id, scope_id;
  long long timestamp, latency_usec;
  int value_type;
  ret_t nvml_return;
  union { double d; unsigned ui; unsigned long ul; unsigned long long ull; long long sll; int si; } value;
} field_value;
enum { FIELD_MEMORY_TEMP = 82, VALUE_TYPE_UINT = 1 };

MODERN ret_t nvmlDeviceGetFieldValues(gpu *g, int n, field_value *values) {
  CHECK(g, -1, values);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  for (int i = 0; i < n; ++i) {
    field_value *v = &values[i];
    v->timestamp = (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    v->latency_usec = 0;
    v->nvml_return = NOT_SUPPORTED;
    if (v->field_id == FIELD_MEMORY_TEMP && !(g->unsupported & (1u << F_MEM_TEMP))) {
      v->value_type = VALUE_TYPE_UINT;
      v->value.ui = uround(pattern_at(&g->mem_temp, seconds_since_init()));
      v->nvml_return = OK;
    }
  }
  return OK;
}

enum { CLOCK_GRAPHICS = 0, CLOCK_SM = 1, CLOCK_MEM = 2 };
API ret_t nvmlDeviceGetClockInfo(gpu *g, int type, unsigned *mhz) {
  CHECK(g, type == CLOCK_MEM ? F_MEM_CLOCK : F_SM_CLOCK, mhz);
  if (type != CLOCK_GRAPHICS && type != CLOCK_SM && type != CLOCK_MEM) return NOT_SUPPORTED;
  *mhz = uround(pattern_at(type == CLOCK_MEM ? &g->mem_clock : &g->sm_clock, seconds_since_init()));
  return OK;
}

API ret_t nvmlDeviceGetMaxClockInfo(gpu *g, int type, unsigned *mhz) {
  CHECK(g, F_MAX_CLOCKS, mhz);
  if (type != CLOCK_GRAPHICS && type != CLOCK_SM && type != CLOCK_MEM) return NOT_SUPPORTED;
  *mhz = uround(type == CLOCK_MEM ? g->max_mem_clock : g->max_sm_clock);
  return OK;
}

API ret_t nvmlDeviceGetPerformanceState(gpu *g, int *p) {
  CHECK(g, F_PSTATE, p);
  *p = (int)uround(pattern_at(&g->pstate, seconds_since_init()));
  return OK;
}

static ret_t reasons(gpu *g, unsigned long long *mask) {
  CHECK(g, F_REASONS, mask);
  *mask = (unsigned long long)llround(pattern_at(&g->clock_reasons, seconds_since_init()));
  return OK;
}
MODERN ret_t nvmlDeviceGetCurrentClocksEventReasons(gpu *g, unsigned long long *m) {
  return reasons(g, m);
}
API ret_t nvmlDeviceGetCurrentClocksThrottleReasons(gpu *g, unsigned long long *m) {
  return reasons(g, m);
}

/* KB/s, sampled over ~20 ms like the real call. */
API ret_t nvmlDeviceGetPcieThroughput(gpu *g, int counter, unsigned *kbs) {
  CHECK(g, F_PCIE_THROUGHPUT, kbs);
  if (counter != 0 && counter != 1) return INVALID;
  sleep_ms(cfg.pcie_delay_ms);
  *kbs = uround(pattern_at(counter == 0 ? &g->pcie_tx_kbs : &g->pcie_rx_kbs, seconds_since_init()));
  return OK;
}

/* Appends every descendant of this process (the recorded command's tree). */
static int add_descendants(proc *all, int n, unsigned long long bytes) {
  enum { MAX_SCAN = 8192 };
  static unsigned pid[MAX_SCAN], ppid[MAX_SCAN];
  static pthread_mutex_t scan_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&scan_lock);
  int scanned = 0;
  DIR *dir = opendir("/proc");
  for (struct dirent *e; dir && (e = readdir(dir)) != NULL && scanned < MAX_SCAN;) {
    char path[300], line[512];
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
    if (!f) continue;
    char *close = fgets(line, sizeof line, f) ? strrchr(line, ')') : NULL;
    if (close && sscanf(close + 2, "%*c %u", &ppid[scanned]) == 1) {
      pid[scanned++] = (unsigned)strtoul(e->d_name, NULL, 10);
    }
    fclose(f);
  }
  if (dir) closedir(dir);
  /* Grow the set from ourselves until no process joins. */
  int first = n;
  for (int grew = 1; grew;) {
    grew = 0;
    for (int i = 0; i < scanned && n < MAX_LIST; ++i) {
      int parent_in = ppid[i] == (unsigned)getpid(), already = 0;
      for (int j = first; j < n; ++j) {
        parent_in |= all[j].pid == ppid[i];
        already |= all[j].pid == pid[i];
      }
      if (parent_in && !already) all[n++] = (proc){pid[i], bytes}, grew = 1;
    }
  }
  pthread_mutex_unlock(&scan_lock);
  return n;
}

typedef struct { unsigned pid; unsigned long long bytes; unsigned gpu_instance, compute_instance; } proc_v2;
typedef struct { unsigned pid; unsigned long long bytes; } proc_v1;

/* The NVML size protocol: too small a count (0 to ask) answers "insufficient
 * size" with the count needed; `growth` adds processes after each call, as if
 * they started between the caller's two calls. */
static ret_t processes(gpu *g, int kind, unsigned *count, void *out, size_t element) {
  ret_t rc = check(g, F_COMPUTE + kind);
  if (rc != OK) return rc;
  if (!count) return INVALID;
  proc all[MAX_LIST];
  int n = 0;
  for (int i = 0; i < g->lists[kind].n; ++i) all[n++] = g->lists[kind].p[i];
  if (kind == 0) {
    int grown = atomic_load(&g->grown);
    for (int i = 0; i < grown && n < MAX_LIST; ++i) all[n++] = (proc){900000u + (unsigned)i, MIB};
    if (g->add_self && n < MAX_LIST) all[n++] = (proc){(unsigned)getpid(), g->added_bytes};
    if (g->add_parent && n < MAX_LIST) all[n++] = (proc){(unsigned)getppid(), g->added_bytes};
    if (g->add_descendants) n = add_descendants(all, n, g->added_bytes);
    if (g->growth > 0) {
      int next = grown + g->growth;
      atomic_store(&g->grown, next < g->growth_max ? next : g->growth_max);
    }
  }
  if (*count < (unsigned)n) {
    *count = (unsigned)n;
    return INSUFFICIENT;
  }
  if (n > 0 && !out) return INVALID;
  for (int i = 0; i < n; ++i) {
    if (element == sizeof(proc_v1)) {
      ((proc_v1 *)out)[i] = (proc_v1){all[i].pid, all[i].bytes};
    } else {
      ((proc_v2 *)out)[i] = (proc_v2){all[i].pid, all[i].bytes, ~0u, ~0u}; /* ~0: not MIG */
    }
  }
  *count = (unsigned)n;
  return OK;
}

#define PROCESS_CALLS(Kind, k)                                                            \
  MODERN ret_t nvmlDeviceGet##Kind##RunningProcesses_v3(gpu *g, unsigned *c, void *out) { \
    return processes(g, k, c, out, sizeof(proc_v2));                                      \
  }                                                                                       \
  MODERN ret_t nvmlDeviceGet##Kind##RunningProcesses_v2(gpu *g, unsigned *c, void *out) { \
    return processes(g, k, c, out, sizeof(proc_v2));                                      \
  }                                                                                       \
  API ret_t nvmlDeviceGet##Kind##RunningProcesses(gpu *g, unsigned *c, void *out) {       \
    return processes(g, k, c, out, sizeof(proc_v1));                                      \
  }
/* One sample per process of `process_util` with a non-zero share, stamped
 * now (CPU microseconds), as the driver samples only processes that used the
 * GPU; none newer than `last_seen`: "not found". */
typedef struct {
  unsigned pid;
  unsigned long long time_stamp;
  unsigned sm, mem, enc, dec;
} util_sample;
API ret_t nvmlDeviceGetProcessUtilization(gpu *g, util_sample *out, unsigned *count,
                                          unsigned long long last_seen) {
  ret_t rc = check(g, F_PROC_UTIL);
  if (rc != OK) return rc;
  if (!count) return INVALID;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const unsigned long long stamp = (unsigned long long)now.tv_sec * 1000000ull + (unsigned long long)now.tv_nsec / 1000;
  if (stamp <= last_seen) return NOT_FOUND;
  unsigned n = 0;
  for (int i = 0; i < g->process_util.n; ++i) n += g->process_util.p[i].bytes > 0;
  if (n == 0) return NOT_FOUND;
  if (!out || *count < n) {
    *count = n;
    return INSUFFICIENT;
  }
  n = 0;
  for (int i = 0; i < g->process_util.n; ++i) {
    const proc *p = &g->process_util.p[i];
    if (p->bytes > 0) out[n++] = (util_sample){p->pid, stamp, (unsigned)p->bytes, 0, 0, 0};
  }
  *count = n;
  return OK;
}

PROCESS_CALLS(Compute, 0)
PROCESS_CALLS(Graphics, 1)
PROCESS_CALLS(MPSCompute, 2)

/* ---- GPM (NVML 11.8 and later; absent from the old build) --------------- */

/* A sample records which GPU it was taken of and when; a metric is the mean
 * of its pattern between two samples' times (the value at the second when
 * they coincide), as GPM averages its counters over the window. */
typedef struct { unsigned magic; gpu *g; double t; int taken; } gpm_sample;
enum { GPM_SAMPLE_MAGIC = 0x67706d31u, FAKE_GPM_METRIC_MAX = 98 /* NVML 11.8-12.8 */ };

typedef struct {
  unsigned metric_id;
  ret_t nvml_return;
  double value;
  struct { char *short_name, *long_name, *unit; } info;
} gpm_metric;
typedef struct {
  unsigned version, num_metrics;
  gpm_sample *sample1, *sample2;
  gpm_metric metrics[FAKE_GPM_METRIC_MAX];
} gpm_metrics_get;
typedef struct { unsigned version, is_supported_device; } gpm_support;

MODERN ret_t nvmlGpmQueryDeviceSupport(gpu *g, gpm_support *s) {
  CHECK(g, F_GPM, s);
  if (s->version != 1) return VERSION_MISMATCH;
  s->is_supported_device = g->gpm ? 1u : 0u;
  return OK;
}

MODERN ret_t nvmlGpmSampleAlloc(gpm_sample **out) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (!out) return INVALID;
  *out = calloc(1, sizeof **out);
  if (!*out) return UNKNOWN;
  (*out)->magic = GPM_SAMPLE_MAGIC;
  return OK;
}

MODERN ret_t nvmlGpmSampleFree(gpm_sample *s) {
  if (!s || s->magic != GPM_SAMPLE_MAGIC) return INVALID;
  s->magic = 0;
  free(s);
  return OK;
}

MODERN ret_t nvmlGpmSampleGet(gpu *g, gpm_sample *s) {
  CHECK(g, F_GPM, s);
  if (s->magic != GPM_SAMPLE_MAGIC) return INVALID;
  if (!g->gpm) return NOT_SUPPORTED;
  if (g->gpm_sample_error != OK) return g->gpm_sample_error;
  s->g = g;
  s->t = seconds_since_init();
  s->taken = 1;
  return OK;
}

static double mean_between(const pattern *p, double t1, double t2) {
  /* A constant's mean is the constant: (c*t2 - c*t1) / (t2 - t1) is not always c in doubles,
     and the times are the real clock's, so a test's exact value came out 5 ULPs off under load. */
  if (t2 <= t1 || p->kind == CONST) return pattern_at(p, t2);
  return (pattern_integral(p, t2) - pattern_integral(p, t1)) / (t2 - t1);
}

MODERN ret_t nvmlGpmMetricsGet(gpm_metrics_get *m) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (!m) return INVALID;
  if (m->version != 1) return VERSION_MISMATCH;
  const gpm_sample *a = m->sample1, *b = m->sample2;
  if (!a || !b || a->magic != GPM_SAMPLE_MAGIC || b->magic != GPM_SAMPLE_MAGIC || !a->taken ||
      !b->taken || a->g != b->g || m->num_metrics > FAKE_GPM_METRIC_MAX) {
    return INVALID;
  }
  ret_t rc = check(a->g, F_GPM);
  if (rc != OK) return rc;
  if (a->g->gpm_error != OK) return a->g->gpm_error;
  for (unsigned i = 0; i < m->num_metrics; ++i) {
    gpm_metric *out = &m->metrics[i];
    char id[16];
    snprintf(id, sizeof id, "%u", out->metric_id);
    out->nvml_return = NOT_SUPPORTED;
    if (has_word(a->g->gpm_unsupported, id)) continue;
    for (int k = 0; k < GPM_METRICS; ++k) {
      if (kGpmMetrics[k].id != out->metric_id) continue;
      out->value = mean_between(&a->g->gpm_values[k], a->t, b->t);
      out->nvml_return = OK;
    }
  }
  return OK;
}
