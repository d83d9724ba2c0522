#ifndef LINKD_COPENSSL_SHIM_H
#define LINKD_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#endif
