// The C surface of sd-bus (libsystemd, Debian libsystemd-dev; the same API is elogind's and
// basu's) that the DBus module uses.
//
// The vtable macros build structures with bit fields and unions, which Swift cannot write: they
// become small static inline helpers, prefixed csdbus_, that fill one entry of a vtable allocated
// at run time. Only Sources/DBus/Internal/SDBus.swift imports this module.
#ifndef CSDBUS_SHIM_H
#define CSDBUS_SHIM_H

#include <systemd/sd-bus.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/// The first entry of a vtable.
static inline void csdbus_vtable_start(sd_bus_vtable *entry) {
    *entry = (sd_bus_vtable)SD_BUS_VTABLE_START(0);
}

/// A method anyone on the bus may call (the bus's policy still applies).
static inline void csdbus_vtable_method(
    sd_bus_vtable *entry, const char *member, const char *signature, const char *result,
    sd_bus_message_handler_t handler) {
    *entry = (sd_bus_vtable)SD_BUS_METHOD(member, signature, result, handler, SD_BUS_VTABLE_UNPRIVILEGED);
}

/// A read-only property that announces its changes with PropertiesChanged, values included.
static inline void csdbus_vtable_property(
    sd_bus_vtable *entry, const char *member, const char *signature, sd_bus_property_get_t get) {
    *entry = (sd_bus_vtable)SD_BUS_PROPERTY(member, signature, get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE);
}

/// A property others may set, that announces its changes with PropertiesChanged.
static inline void csdbus_vtable_writable_property(
    sd_bus_vtable *entry, const char *member, const char *signature, sd_bus_property_get_t get,
    sd_bus_property_set_t set) {
    *entry = (sd_bus_vtable)SD_BUS_WRITABLE_PROPERTY(
        member, signature, get, set, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | SD_BUS_VTABLE_UNPRIVILEGED);
}

/// A signal, so that introspection lists it.
static inline void csdbus_vtable_signal(sd_bus_vtable *entry, const char *member, const char *signature) {
    *entry = (sd_bus_vtable)SD_BUS_SIGNAL(member, signature, 0);
}

/// The last entry of a vtable.
static inline void csdbus_vtable_end(sd_bus_vtable *entry) {
    *entry = (sd_bus_vtable)SD_BUS_VTABLE_END;
}

/// An empty error (SD_BUS_ERROR_NULL).
static inline sd_bus_error csdbus_error_null(void) {
    sd_bus_error error = SD_BUS_ERROR_NULL;
    return error;
}

/// A new eventfd for waking the bus's thread, non-blocking and closed on exec; -1 on failure.
static inline int csdbus_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

#endif
