// The C surface of libmosquitto (Debian libmosquitto-dev 2.0.11, the Eclipse reference MQTT
// client) that LocationPublisher uses: the client (mosquitto.h) and MQTT v5's reason codes and
// property identifiers (mqtt_protocol.h).
//
// Only Sources/LocationPublisher/MQTT/Internal/LibMosquitto.swift imports this module.
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>
#include <mqtt_protocol.h>

#endif
