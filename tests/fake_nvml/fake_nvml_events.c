/* The fake driver's events (nvmlEventSet*, nvmlDeviceRegisterEvents) and MIG
 * devices (nvmlDeviceGetMigMode and the MIG handles), scripted per GPU by
 * the scenario keys in README.md. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml.h"

enum { EVENT_SINGLE_BIT_ECC = 0x1, EVENT_DOUBLE_BIT_ECC = 0x2, EVENT_XID = 0x8 };
#define NO_INSTANCE (~0u) /* the instance ids of an event not tied to a MIG instance */

static const struct { const char *name; unsigned long long bit; } kEventNames[] = {
    {"ecc_single_bit", EVENT_SINGLE_BIT_ECC}, {"ecc_double_bit", EVENT_DOUBLE_BIT_ECC}, {"xid", EVENT_XID}};
enum { EVENT_NAMES = sizeof kEventNames / sizeof *kEventNames };

void events_mig_defaults(gpu *g) {
  /* A datacenter GPU with ECC on: XIDs and both ECC kinds. */
  g->event_types = EVENT_SINGLE_BIT_ECC | EVENT_DOUBLE_BIT_ECC | EVENT_XID;
  g->n_events = 0;
  g->mig_mode = 0;
  g->n_migs = 0;
}

/* "xid:79@0.3", "ecc_double_bit@0.5", "xid:43@1/2.0" (GPU instance 2, compute instance 0). */
static int parse_event(scripted_event *e, const char *s) {
  e->type = 0;
  for (int i = 0; i < EVENT_NAMES; ++i) {
    size_t n = strlen(kEventNames[i].name);
    if (strncmp(s, kEventNames[i].name, n) == 0 && (s[n] == ':' || s[n] == '@')) e->type = kEventNames[i].bit;
  }
  if (e->type == 0) return -1;
  char *end = NULL;
  const char *colon = strchr(s, ':'), *at = strchr(s, '@');
  if (!at) return -1;
  e->data = colon && colon < at ? strtoull(colon + 1, &end, 10) : 0;
  e->at_s = strtod(at + 1, &end);
  e->gpu_instance = e->compute_instance = NO_INSTANCE;
  if (*end == '/' && sscanf(end + 1, "%u.%u", &e->gpu_instance, &e->compute_instance) != 2) return -1;
  return e->at_s >= 0 ? 0 : -1;
}

/* "1g.10gb:9856:7:0,...": PROFILE:MEMORY_MIB:GPU_INSTANCE:COMPUTE_INSTANCE. */
static int parse_migs(gpu *g, const char *s) {
  g->n_migs = 0;
  for (const char *item = s; item && *item; item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
    if (g->n_migs == MAX_MIG) return -1;
    mig_device *m = &g->migs[g->n_migs];
    char profile[32];
    if (sscanf(item, "%31[^:]:%lf:%u:%u", profile, &m->memory_mib, &m->gpu_instance, &m->compute_instance) != 4) {
      return -1;
    }
    snprintf(m->profile, sizeof m->profile, "%s", profile);
    m->parent = g;
    m->slot = g->n_migs++;
  }
  return 0;
}

int set_events_mig_key(gpu *g, const char *k, const char *v) {
  if (strcmp(k, "event_types") == 0) {
    g->event_types = 0;
    for (int i = 0; i < EVENT_NAMES; ++i) {
      if (has_word(v, kEventNames[i].name)) g->event_types |= kEventNames[i].bit;
    }
    return 0;
  }
  if (strcmp(k, "events") == 0) {
    g->n_events = 0;
    for (const char *item = v; item && *item; item = strchr(item, ',') ? strchr(item, ',') + 1 : NULL) {
      if (g->n_events == MAX_EVENTS || parse_event(&g->events[g->n_events++], item) != 0) return -1;
    }
    return 0;
  }
  if (strcmp(k, "mig_mode") == 0) return g->mig_mode = atoi(v), 0;
  if (strcmp(k, "mig_instances") == 0) return parse_migs(g, v);
  return 1;
}

const mig_device *as_mig(const void *handle) {
  for (int i = 0; handle && i < cfg.gpu_count; ++i) {
    const gpu *g = &cfg.gpus[i];
    for (int j = 0; j < g->n_migs; ++j) {
      if (handle == (const void *)&g->migs[j]) return &g->migs[j];
    }
  }
  return NULL;
}

/* ---- events ------------------------------------------------------------ */

typedef struct {
  unsigned magic;
  double created_s; /* seconds since nvmlInit */
  unsigned long long registered[MAX_GPUS];
  unsigned char delivered[MAX_GPUS][MAX_EVENTS];
  pthread_mutex_t lock;
} event_set;
enum { EVENT_SET_MAGIC = 0x65767431u };

typedef struct {
  gpu *device;
  unsigned long long type, data;
  unsigned gpu_instance, compute_instance;
} event_data;

API ret_t nvmlEventSetCreate(event_set **out) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (!out) return INVALID;
  event_set *set = calloc(1, sizeof *set);
  if (!set) return UNKNOWN;
  set->magic = EVENT_SET_MAGIC;
  set->created_s = seconds_since_init();
  pthread_mutex_init(&set->lock, NULL);
  *out = set;
  return OK;
}

API ret_t nvmlEventSetFree(event_set *set) {
  if (!set || set->magic != EVENT_SET_MAGIC) return INVALID;
  set->magic = 0;
  pthread_mutex_destroy(&set->lock);
  free(set);
  return OK;
}

API ret_t nvmlDeviceGetSupportedEventTypes(gpu *g, unsigned long long *types) {
  ret_t rc = check(g, F_EVENTS);
  if (rc != OK) return rc;
  if (!types) return INVALID;
  *types = g->event_types;
  return OK;
}

API ret_t nvmlDeviceRegisterEvents(gpu *g, unsigned long long types, event_set *set) {
  ret_t rc = check(g, F_EVENTS);
  if (rc != OK) return rc;
  if (!set || set->magic != EVENT_SET_MAGIC) return INVALID;
  if (types & ~g->event_types) return NOT_SUPPORTED; /* as NVML: only supported types */
  pthread_mutex_lock(&set->lock);
  set->registered[g - cfg.gpus] |= types;
  pthread_mutex_unlock(&set->lock);
  return OK;
}

/* The earliest scripted event of a registered type not yet delivered;
 * -1 when none is left. */
static int next_event(const event_set *set, int *gpu_out) {
  int best = -1;
  double best_at = 0;
  for (int i = 0; i < cfg.gpu_count; ++i) {
    const gpu *g = &cfg.gpus[i];
    for (int j = 0; j < g->n_events; ++j) {
      if (set->delivered[i][j] || !(g->events[j].type & set->registered[i])) continue;
      if (best < 0 || g->events[j].at_s < best_at) best = j, best_at = g->events[j].at_s, *gpu_out = i;
    }
  }
  return best;
}

/* Blocks until the next scripted event is due, or `timeout_ms` passes
 * (answering 10, timeout, as NVML does). */
MODERN ret_t nvmlEventSetWait_v2(event_set *set, event_data *data, unsigned timeout_ms) {
  if (atomic_load(&init_count) == 0) return UNINIT;
  if (!set || set->magic != EVENT_SET_MAGIC || !data) return INVALID;
  if (cfg.event_wait_error != OK) return cfg.event_wait_error;
  pthread_mutex_lock(&set->lock);
  int gi = 0, e = next_event(set, &gi);
  double wait_s = 0;
  if (e >= 0) wait_s = set->created_s + cfg.gpus[gi].events[e].at_s - seconds_since_init();
  if (e < 0 || wait_s > timeout_ms / 1000.0) {
    pthread_mutex_unlock(&set->lock);
    sleep_ms(timeout_ms);
    return TIMEOUT;
  }
  set->delivered[gi][e] = 1;
  pthread_mutex_unlock(&set->lock);
  sleep_ms(wait_s * 1000);
  const scripted_event *ev = &cfg.gpus[gi].events[e];
  *data = (event_data){&cfg.gpus[gi], ev->type, ev->type == EVENT_XID ? ev->data : 0, ev->gpu_instance,
                       ev->compute_instance};
  return OK;
}

/* ---- MIG (drivers of R450 and later; absent from the old build) ---------- */

MODERN ret_t nvmlDeviceGetMigMode(gpu *g, unsigned *current, unsigned *pending) {
  ret_t rc = check(g, F_MIG);
  if (rc != OK) return rc;
  if (!current || !pending) return INVALID;
  *current = *pending = (unsigned)g->mig_mode;
  return OK;
}

MODERN ret_t nvmlDeviceGetMaxMigDeviceCount(gpu *g, unsigned *count) {
  ret_t rc = check(g, F_MIG);
  if (rc != OK) return rc;
  if (!count) return INVALID;
  *count = MAX_MIG;
  return OK;
}

/* Slots past the configured instances are empty: "not found", as NVML says
 * of an index without a MIG device. */
MODERN ret_t nvmlDeviceGetMigDeviceHandleByIndex(gpu *g, unsigned index, mig_device **out) {
  ret_t rc = check(g, F_MIG);
  if (rc != OK) return rc;
  if (!out || !g->mig_mode || index >= MAX_MIG) return INVALID;
  if (index >= (unsigned)g->n_migs) return NOT_FOUND;
  *out = &g->migs[index];
  return OK;
}

/* Only MIG handles have instance ids; a whole GPU's handle is refused. */
MODERN ret_t nvmlDeviceGetGpuInstanceId(const void *handle, unsigned *id) {
  const mig_device *m = as_mig(handle);
  if (!m || !id) return INVALID;
  *id = m->gpu_instance;
  return OK;
}

MODERN ret_t nvmlDeviceGetComputeInstanceId(const void *handle, unsigned *id) {
  const mig_device *m = as_mig(handle);
  if (!m || !id) return INVALID;
  *id = m->compute_instance;
  return OK;
}
