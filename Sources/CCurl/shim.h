#ifndef LINKD_CCURL_SHIM_H
#define LINKD_CCURL_SHIM_H
#include <curl/curl.h>
#endif
