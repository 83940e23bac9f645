package dev.periscope.harness;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Selenium Grid on loopback, from the Maven artifact (examples/selenium-grid unpacks it): a
 * hub and {@code nodes} nodes, each with {@code slots} slots of Debian's Chromium driven by its
 * chromium-driver. The commands are docs/operations.md's ("Running on Selenium Grid"). Every
 * process it starts is its own, found by pid, and stopped with its children.
 */
public final class SeleniumGrid implements AutoCloseable {
  /** Where the Grid's jars are. */
  static final Path LIB =
      Path.of(System.getProperty("periscope.grid.lib", "../selenium-grid/target/lib"))
          .toAbsolutePath()
          .normalize();

  public final URI url;
  private final Path dir;
  private final int publish;
  private final int subscribe;
  private final Process hub;
  private final List<Process> nodes = new ArrayList<>();

  public SeleniumGrid(Path dir, int nodeCount, int slots) throws Exception {
    this.dir = dir;
    int port = freePort();
    publish = freePort();
    subscribe = freePort();
    url = URI.create("http://127.0.0.1:" + port);
    Files.writeString(
        dir.resolve("node.toml"),
        """
        [node]
        detect-drivers = false
        max-sessions = %d
        session-timeout = 120

        [[node.driver-configuration]]
        display-name = "chromium"
        stereotype = '{"browserName": "chrome", "goog:chromeOptions": {"binary": "/usr/bin/chromium"%s}}'
        max-sessions = %d
        webdriver-executable = "/usr/bin/chromedriver"
        """
            .formatted(
                slots,
                // The node decides its sandbox: Chromium run by root needs it off.
                "root".equals(System.getProperty("user.name"))
                    ? ", \"args\": [\"--no-sandbox\"]"
                    : "",
                slots));
    hub =
        start(
            "hub",
            "hub",
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(port),
            "--publish-events",
            "tcp://127.0.0.1:" + publish,
            "--subscribe-events",
            "tcp://127.0.0.1:" + subscribe,
            "--healthcheck-interval",
            "2");
    try {
      for (int i = 0; i < nodeCount; i++) {
        addNode();
      }
      awaitNodes(nodeCount);
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Starts one more node; the Grid has it once {@link #awaitNodes} says so. */
  public Process addNode() throws IOException {
    Process node =
        start(
            "node-" + nodes.size(),
            "node",
            "--host",
            "127.0.0.1",
            "--port",
            String.valueOf(freePort()),
            "--grid-url",
            url.toString(),
            "--publish-events",
            "tcp://127.0.0.1:" + publish,
            "--subscribe-events",
            "tcp://127.0.0.1:" + subscribe,
            "--heartbeat-period",
            "2",
            "--selenium-manager",
            "false",
            "--config",
            dir.resolve("node.toml").toString());
    nodes.add(node);
    return node;
  }

  public List<Process> nodes() {
    return List.copyOf(nodes);
  }

  /** Stops the hub (the router every request and CDP connection goes through); nodes stay. */
  public void stopHub() throws InterruptedException {
    killTree(hub);
    hub.waitFor(10, TimeUnit.SECONDS);
  }

  /**
   * Starts a hub or node. Its temporary files, and those of the drivers and browsers a node starts
   * (chromedriver's profiles, Chromium's singleton directories, which a killed browser leaves), go
   * under {@code dir}, not /tmp, and go with it.
   */
  private Process start(String name, String... args) throws IOException {
    Path tmp = Files.createDirectories(dir.resolve("tmp-" + name));
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                LIB + "/*",
                "org.openqa.selenium.grid.Bootstrap"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("TMPDIR", tmp.toString());
    return builder
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile())
        .start();
  }

  /** Waits until the Grid has exactly {@code count} nodes up (a killed one no longer counted). */
  public void awaitNodes(int count) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    String status = "";
    while (System.nanoTime() < deadline) {
      try {
        status =
            http.send(
                    HttpRequest.newBuilder(url.resolve("/status"))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        if (status.split("\"availability\": \"UP\"", -1).length - 1 == count) {
          return;
        }
      } catch (IOException notYet) {
        // the hub is still starting
      }
      Thread.sleep(250);
    }
    throw new AssertionError("the Grid did not have " + count + " nodes up in 90 s: " + status);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Kills a process and everything it started (a node's drivers and browsers). */
  public static void killTree(Process p) {
    p.descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
  }

  @Override
  public void close() throws InterruptedException {
    for (Process n : nodes) {
      killTree(n);
    }
    if (hub == null) {
      return;
    }
    killTree(hub);
    for (Process n : nodes) {
      n.waitFor(10, TimeUnit.SECONDS);
    }
    hub.waitFor(10, TimeUnit.SECONDS);
  }
}
