// The C surface of zlib (Debian zlib1g-dev) that the package uses: gzread(3), which reads plain
// and gzip-compressed files alike, so a `.fit.gz`, `.gpx.gz` or `.tcx.gz` is read as it is
// inflated.
//
// Only Sources/GZipFiles/GZipReader.swift imports this module; the FIT, GPX and TCX readers (and
// the workout importers' format detection) read files through its `GZipReader`.
#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// gzopen(3) with O_CLOEXEC semantics ("e") and a larger buffer; reads plain files unchanged.
static inline gzFile czlib_gzopen(const char *path) {
    gzFile file = gzopen(path, "rbe");
    if (file != NULL) {
        gzbuffer(file, 256 * 1024);
    }
    return file;
}

/// gzread(3) into `buffer`; -1 on error (see czlib_gzerrnum).
static inline int czlib_gzread(gzFile file, void *buffer, unsigned size) {
    return gzread(file, buffer, size);
}

/// zlib's message for the last error on `file`, or NULL.
static inline const char *czlib_gzerror(gzFile file) {
    int code = 0;
    const char *message = gzerror(file, &code);
    return code == Z_OK ? NULL : message;
}

/// zlib's code for the last error on `file` (Z_OK when none).
static inline int czlib_gzerrnum(gzFile file) {
    int code = 0;
    (void)gzerror(file, &code);
    return code;
}

/// Whether the file is read as it is (not gzip data): gzdirect(3), meaningful after a read.
static inline int czlib_gzdirect(gzFile file) {
    return gzdirect(file);
}

/// How many bytes of the file zlib has consumed (for progress over .gz files).
static inline long long czlib_gzoffset(gzFile file) {
    return (long long)gzoffset(file);
}

/// gzclose_r(3).
static inline void czlib_gzclose(gzFile file) {
    gzclose_r(file);
}

#endif
