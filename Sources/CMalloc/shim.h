/* glibc's malloc tuning (mallopt), for MallocTuning in LinkdServer. */
#include <malloc.h>
