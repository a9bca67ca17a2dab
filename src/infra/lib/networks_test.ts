import assert from "node:assert/strict";
import { inNetworks, parseNetworks, PRIVATE_NETWORKS } from "./networks.ts";

Deno.test("the private and loopback ranges take a home network's addresses, not the internet's", () => {
  const home = parseNetworks(PRIVATE_NETWORKS);
  for (const inside of ["127.0.0.1", "10.1.2.3", "172.16.0.9", "172.31.255.255", "192.168.1.20"]) {
    assert.ok(inNetworks(inside, home), inside);
  }
  for (const inside of ["::1", "[::1]", "fd12:3456::7", "::ffff:192.168.1.20"]) {
    assert.ok(inNetworks(inside, home), inside);
  }
  for (const outside of ["8.8.8.8", "172.32.0.1", "192.169.0.1", "2001:4860::8888", "::2"]) {
    assert.ok(!inNetworks(outside, home), outside);
  }
  assert.ok(!inNetworks("", home));
  assert.ok(!inNetworks("not an address", home));
});

Deno.test("ranges: a bare address is its own range; IPv4 prefixes count IPv4 bits", () => {
  const list = parseNetworks(" 203.0.113.7 , 198.51.100.0/25,2001:db8:1::/48");
  assert.ok(inNetworks("203.0.113.7", list));
  assert.ok(!inNetworks("203.0.113.8", list));
  assert.ok(inNetworks("198.51.100.127", list));
  assert.ok(!inNetworks("198.51.100.128", list));
  assert.ok(inNetworks("2001:db8:1:ffff::1", list));
  assert.ok(!inNetworks("2001:db8:2::1", list));
  assert.ok(inNetworks("1.2.3.4", parseNetworks("0.0.0.0/0")));
  assert.ok(!inNetworks("::2", parseNetworks("0.0.0.0/0")), "IPv4's /0 is not all of IPv6");
});

Deno.test("ranges: `none` is no range; anything unreadable is refused, naming it", () => {
  assert.deepEqual(parseNetworks("none"), []);
  assert.ok(!inNetworks("127.0.0.1", parseNetworks("NONE")));
  for (
    const bad of ["", "10.0.0.0/33", "::/129", "10.0.0.0/8/1", "10.0.0/8", "lan", "10.0.0.0/x"]
  ) {
    assert.throws(() => parseNetworks(bad), /is not an address range/, bad);
  }
  assert.throws(() => parseNetworks("10.0.0.0/8,,::1"), /"" is not an address range/);
});
