// The C surface of libmosquitto (Debian libmosquitto-dev 2.0.11, the Eclipse reference MQTT
// client) that LocationPublisher uses.
//
// Only Sources/LocationPublisher/MQTT/Internal/LibMosquitto.swift imports this module. What Swift
// cannot call directly (the variadic log callback's format, macros) becomes a static inline helper
// prefixed cmosquitto_.
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <errno.h>
#include <string.h>

/// MQTT_PROTOCOL_V311 and MQTT_PROTOCOL_V5 are macros; Swift sees them, but spelled as ints here
/// they read as what mosquitto_int_option(MOSQ_OPT_PROTOCOL_VERSION) takes.
static inline int cmosquitto_protocol_v311(void) { return MQTT_PROTOCOL_V311; }
static inline int cmosquitto_protocol_v5(void) { return MQTT_PROTOCOL_V5; }

#endif
