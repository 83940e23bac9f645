package dev.periscope.examples.langchain4j;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code harness mcp --http 127.0.0.1:0} as a real subprocess, from the harness module's {@code
 * target/classes} and {@code target/lib} (as {@code ./harness} runs it), with the plugin package
 * installed into a profile of a temporary {@code HARNESS_HOME} and a project that lets the browser
 * reach 127.0.0.1 only. Every process it starts is recorded while it runs, so {@link #close} can
 * say which outlived it.
 */
final class HarnessServer implements AutoCloseable {
  static final Path HARNESS =
      Path.of(System.getProperty("periscope.harness.dir", "../harness"))
          .toAbsolutePath()
          .normalize();
  static final Path PACKAGE =
      Path.of(
              System.getProperty(
                  "periscope.package", "../../browser-plugin/target/periscope-browser-0.1.0.zip"))
          .toAbsolutePath()
          .normalize();
  static final String LOOPBACK_ONLY =
      """
      plugins:
        browser:
          network:
            mode: allowlist
            allowCidrs: ["127.0.0.1/32"]
      """;
  private static final Pattern SERVING =
      Pattern.compile("at (http://\\S+/mcp) .* the token is in (\\S+)$");

  final String endpoint;
  final String token;
  private final Process process;
  private final Path tmp;
  private final Path errFile;
  private final List<String> stderr = new CopyOnWriteArrayList<>();
  private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
  private final Thread watcher;
  private final Thread reader;

  /** Installs the plugin into profile {@code p} under {@code dir} and starts serving it. */
  HarnessServer(Path dir) throws IOException, InterruptedException {
    Path home = Files.createDirectories(dir.resolve("home"));
    tmp = Files.createDirectories(dir.resolve("tmp"));
    Path project = Files.createDirectories(dir.resolve("project/.harness")).getParent();
    Files.writeString(project.resolve(".harness/project.yaml"), LOOPBACK_ONLY);

    Path addLog = dir.resolve("plugin-add.txt");
    Process add =
        builder(home, "plugin", "add", "--profile", "p", PACKAGE.toString())
            .redirectOutput(addLog.toFile())
            .redirectErrorStream(true)
            .start();
    if (!add.waitFor(120, TimeUnit.SECONDS) || add.exitValue() != 0) {
      add.destroyForcibly();
      throw new AssertionError("plugin add failed:\n" + Files.readString(addLog));
    }

    errFile = dir.resolve("server-err.txt");
    process =
        builder(
                home,
                "mcp",
                "--http",
                "127.0.0.1:0",
                "--profile",
                "p",
                "--project",
                project.toString())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            // A file, not a pipe: all the server wrote is there to read, whoever holds the pipe.
            .redirectError(errFile.toFile())
            .start();
    watcher = new Thread(this::watch, "harness-descendants");
    watcher.setDaemon(true);
    watcher.start();
    CompletableFuture<Matcher> serving = new CompletableFuture<>();
    reader = new Thread(() -> read(serving), "harness-stderr");
    reader.setDaemon(true);
    reader.start();
    Matcher m;
    try {
      m = serving.get(120, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      close();
      throw new AssertionError("the server did not start:\n" + err(), e);
    }
    endpoint = m.group(1);
    token = Files.readString(Path.of(m.group(2))).strip();
  }

  private ProcessBuilder builder(Path home, String... args) {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+DisplayVMOutputToStderr",
                "-Xlog:disable",
                "-Xlog:all=warning:stderr",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                HARNESS.resolve("target/classes")
                    + File.pathSeparator
                    + HARNESS.resolve("target/lib/*"),
                "dev.periscope.harness.cli.Main"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    Map<String, String> env = pb.environment();
    env.put("HARNESS_HOME", home.toString());
    env.put("TMPDIR", tmp.toString());
    env.put("HARNESS_TTY", "none"); // no approval question reaches the terminal running the tests
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    return pb;
  }

  private void watch() {
    while (process.isAlive()) {
      process.descendants().forEach(descendants::add);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void read(CompletableFuture<Matcher> serving) {
    try (BufferedReader r = Files.newBufferedReader(errFile, StandardCharsets.UTF_8)) {
      StringBuilder partial = new StringBuilder();
      boolean exited = false;
      while (true) {
        int c = r.read();
        if (c < 0) {
          if (exited) {
            break;
          }
          exited = !process.isAlive(); // one more pass after it exits, then done
          Thread.sleep(20);
          continue;
        }
        if (c != '\n') {
          partial.append((char) c);
          continue;
        }
        String line = partial.toString();
        partial.setLength(0);
        stderr.add(line);
        Matcher m = SERVING.matcher(line);
        if (m.find()) {
          serving.complete(m);
        }
      }
    } catch (IOException | InterruptedException e) {
      // then no more
    }
    serving.completeExceptionally(new IllegalStateException("the server exited"));
  }

  /** Every line the server wrote to standard error so far. */
  String err() {
    return String.join("\n", stderr);
  }

  /** Whether the server writes a line containing {@code text} within {@code within}. */
  boolean said(String text, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!err().contains(text) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return err().contains(text);
  }

  /**
   * Stops the server as a service manager does (SIGTERM: every session ends with its checkpoint,
   * the browsers stop), forcibly after 30 s; then ends whatever it started that still runs, and
   * returns those processes (none, when the harness cleaned up after itself).
   */
  List<String> stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    watcher.join(5_000);
    reader.join(5_000);
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
      Thread.sleep(50);
    }
    List<String> left = new ArrayList<>();
    for (ProcessHandle p : descendants) {
      if (p.isAlive()) {
        left.add(p.pid() + " " + p.info().command().orElse("?"));
        p.destroyForcibly();
      }
    }
    return left;
  }

  /** How many processes the server started while it ran (drivers and browsers). */
  int started() {
    return descendants.size();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
  }
}
