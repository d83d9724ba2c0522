/* glibc's malloc tuning (mallopt), for MallocArenas in LinkdServer. */
#include <malloc.h>
