package dev.periscope.browser.policy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves a host name to all its addresses. The proxy asks once per connection and uses only what
 * it checked.
 */
@FunctionalInterface
public interface Resolver {
  List<InetAddress> resolve(String host) throws UnknownHostException;

  static Resolver system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }
}
