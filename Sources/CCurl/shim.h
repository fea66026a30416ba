// The C surface of libcurl (Debian libcurl4-openssl-dev 7.88) that HTTPClient uses (for the
// publisher's HTTP destinations and the workout uploads): the multi interface, driven by a thread
// of our own.
//
// curl_easy_setopt(3) and curl_easy_getinfo(3) are variadic, which Swift cannot call: each type of
// argument gets a small static inline helper, prefixed ccurl_. Only
// Sources/HTTPClient/Curl.swift imports this module.
#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

/// The callback that receives a response's body.
typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode ccurl_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode ccurl_setopt_write_callback(CURL *easy, ccurl_write_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode ccurl_setopt_header_callback(CURL *easy, ccurl_write_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, callback);
}

/// CURLOPT_POSTFIELDSIZE_LARGE takes a curl_off_t.
static inline CURLcode ccurl_setopt_post_size(CURL *easy, long long size) {
    return curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)size);
}

static inline CURLcode ccurl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

static inline CURLcode ccurl_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

/// A curl_off_t answer (CURLINFO_SIZE_UPLOAD_T).
static inline CURLcode ccurl_getinfo_off(CURL *easy, CURLINFO info, long long *value) {
    curl_off_t answer = 0;
    CURLcode code = curl_easy_getinfo(easy, info, &answer);
    *value = (long long)answer;
    return code;
}

/// The size of the buffer CURLOPT_ERRORBUFFER fills (a macro Swift may not import).
static inline size_t ccurl_error_size(void) {
    return CURL_ERROR_SIZE;
}

/// CURLAUTH_BASIC, a cast Swift does not import.
static inline long ccurl_auth_basic(void) {
    return (long)CURLAUTH_BASIC;
}

#endif
