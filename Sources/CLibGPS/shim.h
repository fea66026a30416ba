// The C surface of libgps (Debian libgps-dev 3.22) that LocationFacade uses.
//
// Macros and variadic calls that Swift cannot import become small static inline helpers,
// prefixed clibgps_. Only Sources/LocationFacade/Internal/LibGPS.swift imports this module.
#ifndef CLIBGPS_SHIM_H
#define CLIBGPS_SHIM_H

#include <gps.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timex.h>

/// gps_data_t is about 24 KB: keep it on the heap, zeroed.
static inline struct gps_data_t *clibgps_alloc(void) {
    return (struct gps_data_t *)calloc(1, sizeof(struct gps_data_t));
}

/// libgps ORs `set` bits across messages; clear them before each read.
static inline void clibgps_clear_set(struct gps_data_t *data) {
    data->set = 0;
}

/// gps_send(3) is variadic, which Swift cannot call; send one preformatted command.
static inline int clibgps_send(struct gps_data_t *data, const char *command) {
    return gps_send(data, "%s", command);
}

/// Enables JSON watching, of one device when `device` is non-NULL.
static inline int clibgps_watch(struct gps_data_t *data, const char *device) {
    unsigned int flags = WATCH_ENABLE | WATCH_JSON;
    if (device != NULL) {
        flags |= WATCH_DEVICE;
    }
    return gps_stream(data, flags, (void *)device);
}

/// Disables watching.
static inline int clibgps_unwatch(struct gps_data_t *data) {
    return gps_stream(data, WATCH_DISABLE, NULL);
}

/// The socket libgps reads from, or -1.
static inline int clibgps_fd(const struct gps_data_t *data) {
    return (int)data->gps_fd;
}

/// Seconds since the Unix epoch of a timespec, or NAN when it is zero (libgps's "absent").
static inline double clibgps_seconds(timespec_t ts) {
    if (ts.tv_sec == 0 && ts.tv_nsec == 0) {
        return __builtin_nan("");
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/// Number of entries in gps_data_t.skyview and devices.list.
static inline int clibgps_max_channels(void) { return MAXCHANNELS; }
static inline int clibgps_max_devices(void) { return MAXUSERDEVS; }

static inline const struct satellite_t *clibgps_satellite(const struct gps_data_t *data, int index) {
    return &data->skyview[index];
}

static inline const struct devconfig_t *clibgps_device(const struct gps_data_t *data, int index) {
    return &data->devices.list[index];
}

/// The kernel's word on the system clock, read with adjtimex(2) (modes 0: read only, allowed to
/// anyone): 1 when synchronized (an NTP daemon such as chrony, perhaps fed by gpsd, keeps it),
/// 0 when not (the call returns TIME_ERROR, or the status has STA_UNSYNC), -1 when it cannot be read.
static inline int clibgps_kernel_clock_synchronized(void) {
    struct timex clock;
    memset(&clock, 0, sizeof clock);
    int state = adjtimex(&clock);
    if (state == -1) {
        return -1;
    }
    return (state != TIME_ERROR && (clock.status & STA_UNSYNC) == 0) ? 1 : 0;
}

#endif
