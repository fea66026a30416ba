"""Subscribes with paho-mqtt (the Eclipse MQTT client for Python) and prints what arrives.

Usage: paho_subscribe.py HOST PORT TOPIC [--v5]

Prints `SUBSCRIBED` once the broker granted the subscription, then one JSON line per message:
its topic, payload (UTF-8), QoS and retain flag. A client we did not write, reading what our
publisher sends.
"""
import json
import sys

import paho.mqtt.client as mqtt


def main():
    host, port, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    protocol = mqtt.MQTTv5 if "--v5" in sys.argv else mqtt.MQTTv311
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=protocol)

    def on_connect(client, userdata, flags, reason_code, properties):
        client.subscribe(topic, qos=1)

    def on_subscribe(client, userdata, mid, reason_codes, properties):
        print("SUBSCRIBED", flush=True)

    def on_message(client, userdata, message):
        print(json.dumps({"topic": message.topic, "payload": message.payload.decode("utf-8"),
                          "qos": message.qos, "retain": bool(message.retain)}), flush=True)

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_message = on_message
    client.connect(host, port)
    client.loop_forever()


if __name__ == "__main__":
    main()
