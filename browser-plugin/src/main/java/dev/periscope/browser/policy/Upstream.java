package dev.periscope.browser.policy;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Where the proxy dials for a checked address. In production it is the address itself; tests
 * substitute one that maps a public test address to a loopback server and refuses (and records) any
 * other non-loopback destination, so no test can send a packet off the machine.
 */
@FunctionalInterface
public interface Upstream {
  InetSocketAddress dial(InetSocketAddress checked) throws IOException;

  static Upstream direct() {
    return checked -> checked;
  }
}
