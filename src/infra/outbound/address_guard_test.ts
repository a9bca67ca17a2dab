import { assertEquals } from "../../../tests/helpers/assert.ts";
import { isForbiddenName, judgeAddress, parseIPv4, parseIPv6 } from "./address_guard.ts";

Deno.test("IPv4: private, loopback, link-local, CGNAT, reserved and multicast are refused", () => {
  const cases: Array<[string, string | null]> = [
    ["0.0.0.0", "reserved"],
    ["0.1.2.3", "reserved"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.1", "reserved"],
    ["192.88.99.1", "reserved"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "reserved"],
    ["198.19.255.255", "reserved"],
    ["198.51.100.7", "reserved"],
    ["203.0.113.9", "reserved"],
    ["224.0.0.1", "reserved"],
    ["239.255.255.250", "reserved"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    // Public neighbours of the ranges above.
    ["8.8.8.8", null],
    ["100.63.255.255", null],
    ["100.128.0.0", null],
    ["172.15.255.255", null],
    ["172.32.0.0", null],
    ["192.167.255.255", null],
    ["198.17.255.255", null],
    ["223.255.255.255", null],
    ["1.1.1.1", null],
  ];
  for (const [address, verdict] of cases) assertEquals(judgeAddress(address), verdict, address);
});

Deno.test("IPv6: only global unicast; mapped, NAT64 and 6to4 follow their IPv4 address", () => {
  const cases: Array<[string, string | null]> = [
    ["::", "reserved"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:8.8.8.8", null],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::808:808", null],
    ["64:ff9b:1::1", "reserved"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["2002:808:808::1", null],
    ["fc00::1", "private"],
    ["fd12:3456:789a::1", "private"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "reserved"],
    ["ff02::1", "reserved"],
    ["100::1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2001::1", "reserved"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
    ["3fff::1", "reserved"],
    ["fe80::1%eth0", "invalid"],
    ["2606:4700:4700::1111", null],
    ["2a00:1450:4001:82a::200e", null],
    ["2001:4860:4860::8888", null],
  ];
  for (const [address, verdict] of cases) assertEquals(judgeAddress(address), verdict, address);
});

Deno.test("addresses that do not parse are refused", () => {
  for (
    const text of [
      "",
      "localhost",
      "1.2.3",
      "1.2.3.4.5",
      "01.2.3.4",
      "256.1.1.1",
      "1::2::3",
      "g::1",
      "1:2:3:4:5:6:7:8:9",
    ]
  ) {
    assertEquals(judgeAddress(text), "invalid", text);
  }
  assertEquals(parseIPv4("192.168.0.1"), 0xc0a80001);
  assertEquals(parseIPv6("1:2:3:4:5:6:1.2.3.4"), [1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
  assertEquals(parseIPv6("::"), [0, 0, 0, 0, 0, 0, 0, 0]);
});

Deno.test("localhost and single-label names are never resolved", () => {
  for (const name of ["localhost", "LOCALHOST.", "api.localhost", "intranet", "metadata"]) {
    assertEquals(isForbiddenName(name), true, name);
  }
  for (const name of ["example.com", "localhost.example.com", "a.b"]) {
    assertEquals(isForbiddenName(name), false, name);
  }
});
