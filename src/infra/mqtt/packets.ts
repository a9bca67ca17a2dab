/**
 * mqtt-packet (the packet writer under aedes and mqtt.js) fills a table of 65,536 two-byte
 * Buffers with the first packet it writes, to look up the numbers it writes (packet ids,
 * lengths): ~8 MB of the request thread's heap for the life of the process (issue 26: a heap
 * snapshot at rest). Imported for this side effect by the broker and the gateway before either
 * writes a packet; a number's two bytes are allocated as it is written instead.
 */
import mqttPacket from "mqtt-packet";

mqttPacket.writeToStream.cacheNumbers = false;
