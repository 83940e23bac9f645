package dev.periscope.browser.playwright;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Listeners on loopback where the public SSRF corpus points, counting every connection they get: a
 * policy that holds leaves them at 0. A place something else holds is left out, and said so.
 */
final class Decoys implements AutoCloseable {
  private static final String[][] PLACES = {
    {"127.0.0.1", "80"},
    {"127.0.0.1", "22"},
    {"127.0.0.1", "443"},
    {"127.0.0.1", "2379"},
    {"127.0.0.1", "2375"},
    {"127.0.0.1", "9001"},
    {"127.0.0.1", "11211"},
    {"127.0.0.1", "25"},
    {"127.127.127.127", "80"},
    {"127.0.1.3", "80"},
    {"127.0.0.2", "80"},
    {"127.0.0.6", "80"},
    {"127.1.1.1", "80"},
    {"127.2.2.2", "80"},
    {"127.0.0.1", "12346"}
  };

  private final List<ServerSocket> sockets = new ArrayList<>();
  private final AtomicInteger hits = new AtomicInteger();

  /** Where each connection came to and its first line, for the failure's message. */
  final List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();

  Decoys() {
    for (String[] p : PLACES) {
      try {
        ServerSocket s = new ServerSocket(Integer.parseInt(p[1]), 50, InetAddress.getByName(p[0]));
        sockets.add(s);
        Thread t =
            new Thread(
                () -> {
                  try {
                    while (true) {
                      try (java.net.Socket c = s.accept()) {
                        c.setSoTimeout(200);
                        byte[] head = new byte[200];
                        int n = 0;
                        try {
                          n = Math.max(0, c.getInputStream().read(head));
                        } catch (IOException quiet) {
                          // it said nothing
                        }
                        seen.add(
                            p[0]
                                + ":"
                                + p[1]
                                + " "
                                + new String(
                                        head, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1)
                                    .lines()
                                    .findFirst()
                                    .orElse(""));
                      }
                      hits.incrementAndGet();
                    }
                  } catch (IOException closed) {
                    // the test is over
                  }
                });
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        System.out.println("decoy " + p[0] + ":" + p[1] + " not bound: " + e.getMessage());
      }
    }
  }

  /** How many connections the decoys received. */
  int hits() {
    return hits.get();
  }

  /**
   * The connections on which an HTTP request was sent: where, and its request line. (One over TLS
   * never is: a decoy does not finish the handshake, which a connection made ahead of need begins
   * too.)
   */
  List<String> requests() {
    return seen.stream().filter(s -> HTTP_REQUEST.matcher(s).find()).toList();
  }

  private static final java.util.regex.Pattern HTTP_REQUEST =
      java.util.regex.Pattern.compile("^\\S+ [A-Z]+ \\S+ HTTP/");

  /** How many decoys listen. */
  int size() {
    return sockets.size();
  }

  @Override
  public void close() throws IOException {
    for (ServerSocket s : sockets) {
      s.close();
    }
  }
}
