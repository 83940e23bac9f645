package dev.periscope.browser.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The warm-up sends a real request and opens a real tunnel through a real proxy, on loopback only,
 * and leaves nothing running.
 */
class ProxyWarmupTest {
  @Test
  void forwardsOneRequestAndOpensOneTunnelOnLoopbackAndLeavesNoThread() throws Exception {
    List<InetSocketAddress> dialled = new CopyOnWriteArrayList<>();

    boolean done =
        ProxyWarmup.run(
            checked -> {
              dialled.add(checked);
              return checked;
            });

    assertTrue(done, "the forwarded request was not answered or the tunnel not opened");
    assertEquals(2, dialled.size(), "dialled: " + dialled);
    assertTrue(
        dialled.stream().allMatch(a -> a.getAddress().isLoopbackAddress()),
        "the warm-up dialled off loopback: " + dialled);
    assertFalse(proxyThreadsLeft(), "a proxy thread outlived the warm-up");
  }

  @Test
  void anUpstreamThatRefusesMakesItGiveUpQuietly() throws Exception {
    boolean done =
        ProxyWarmup.run(
            checked -> {
              throw new IOException("refused by the test");
            });

    assertFalse(done);
    assertFalse(proxyThreadsLeft(), "a proxy thread outlived the warm-up");
  }

  /** Whether a proxy's thread is still alive a few seconds on (a stopped pool ends its own). */
  private static boolean proxyThreadsLeft() throws InterruptedException {
    long until = System.nanoTime() + 5_000_000_000L;
    while (true) {
      boolean left =
          Thread.getAllStackTraces().keySet().stream()
              .anyMatch(
                  t ->
                      t.isAlive()
                          && (t.getName().startsWith("periscope-proxy")
                              || t.getName().startsWith("proxy-client")));
      if (!left || System.nanoTime() > until) {
        return left;
      }
      Thread.sleep(50);
    }
  }
}
