#ifndef LINKD_CCURLSHIMS_H
#define LINKD_CCURLSHIMS_H
#include <curl/curl.h>

/// `curl_easy_setopt` with a `long` argument (variadic in C, so not callable from Swift).
CURLcode CCurlShims_easy_setopt_long(CURL *handle, CURLoption option, long value);
/// `curl_easy_setopt` with a pointer argument (strings, lists, user data).
CURLcode CCurlShims_easy_setopt_ptr(CURL *handle, CURLoption option, void *value);
/// `curl_easy_setopt` with a `curl_off_t` argument (sizes).
CURLcode CCurlShims_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/// `curl_easy_setopt` for `CURLOPT_WRITEFUNCTION`.
CURLcode CCurlShims_easy_setopt_write_callback(CURL *handle,
                                               size_t (*callback)(char *, size_t, size_t, void *));
/// `curl_easy_setopt` for `CURLOPT_HEADERFUNCTION`.
CURLcode CCurlShims_easy_setopt_header_callback(CURL *handle,
                                                size_t (*callback)(char *, size_t, size_t, void *));
/// `curl_easy_setopt` for `CURLOPT_READFUNCTION` (a streamed request body).
CURLcode CCurlShims_easy_setopt_read_callback(CURL *handle,
                                              size_t (*callback)(char *, size_t, size_t, void *));
/// `curl_easy_setopt` for `CURLOPT_OPENSOCKETFUNCTION` (the callback that makes each socket curl connects, and may
/// refuse the address by returning `CURL_SOCKET_BAD`).
CURLcode CCurlShims_easy_setopt_opensocket_callback(CURL *handle,
                                                   curl_socket_t (*callback)(void *, curlsocktype, struct curl_sockaddr *));
/// `curl_easy_getinfo` for a `long` result (response code, redirect count).
CURLcode CCurlShims_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// `curl_easy_getinfo` for a string result (content type, effective URL).
CURLcode CCurlShims_easy_getinfo_string(CURL *handle, CURLINFO info, char **value);
/// `curl_multi_setopt` with a `long` argument.
CURLMcode CCurlShims_multi_setopt_long(CURLM *handle, CURLMoption option, long value);
#endif
