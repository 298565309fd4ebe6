// Diagnostic, not part of the build: six NVML calls (those gpuwatch read each
// tick before the cadence split) in a bare loop at 10 Hz for N seconds, then
// an empty loop; prints CPU time of each. Isolates the driver's own cost from
// gpuwatch's. Build: g++ -O2 bench/nvml_loop.cpp -ldl -o nvml_loop
#include <dlfcn.h>
#include <sys/resource.h>
#include <time.h>
#include <cstdio>
#include <cstdlib>
typedef int (*fn_void)();
typedef int (*fn_u_p)(unsigned, void*);
typedef int (*fn_p_p)(void*, void*);
typedef int (*fn_p_u_p)(void*, unsigned, void*);
int main(int argc, char** argv) {
  int seconds = argc > 1 ? atoi(argv[1]) : 30;
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  ((fn_void)dlsym(h, "nvmlInit_v2"))();
  void* dev = nullptr;
  ((fn_u_p)dlsym(h, "nvmlDeviceGetHandleByIndex_v2"))(0, &dev);
  auto util = (fn_p_p)dlsym(h, "nvmlDeviceGetUtilizationRates");
  auto mem = (fn_p_p)dlsym(h, "nvmlDeviceGetMemoryInfo_v2");
  auto power = (fn_p_p)dlsym(h, "nvmlDeviceGetPowerUsage");
  auto temp = (fn_p_u_p)dlsym(h, "nvmlDeviceGetTemperature");
  auto clock = (fn_p_u_p)dlsym(h, "nvmlDeviceGetClockInfo");
  auto reasons = (fn_p_p)dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
  rusage r0; getrusage(RUSAGE_SELF, &r0);
  timespec next; clock_gettime(CLOCK_MONOTONIC, &next);
  unsigned buf[64];
  for (int i = 0; i < seconds * 10; ++i) {
    util(dev, buf); buf[0] = 40 | (2 << 24); mem(dev, buf); power(dev, buf); temp(dev, 0, buf); clock(dev, 1, buf); reasons(dev, buf);
    next.tv_nsec += 100000000; if (next.tv_nsec >= 1000000000) { next.tv_nsec -= 1000000000; next.tv_sec++; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
  }
  rusage r1; getrusage(RUSAGE_SELF, &r1);
  double cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
               ((r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) / 1e6;
  printf("bare NVML loop, 6 calls at 10 Hz for %d s: %.3f s CPU = %.3f %% of one core, %.1f us per tick\n",
         seconds, cpu, cpu / seconds * 100, cpu / (seconds * 10) * 1e6);
  // Same loop with no NVML calls: the cost of waking 10 times a second.
  getrusage(RUSAGE_SELF, &r0);
  for (int i = 0; i < seconds * 10; ++i) {
    next.tv_nsec += 100000000; if (next.tv_nsec >= 1000000000) { next.tv_nsec -= 1000000000; next.tv_sec++; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
  }
  getrusage(RUSAGE_SELF, &r1);
  cpu = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
        ((r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec)) / 1e6;
  printf("empty loop at 10 Hz for %d s: %.3f s CPU, %.1f us per wake-up\n", seconds, cpu, cpu / (seconds * 10) * 1e6);
}
