package dev.periscope.examples.springai;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
 * {@code harness mcp --http 127.0.0.1:0} as a real process (as {@code examples/harness}'s {@code
 * McpHttpProcess} runs it): its endpoint and token learnt from the line it prints on standard
 * error, every process it starts seen while it runs, and stopped with SIGTERM.
 */
final class HarnessHttpServer implements AutoCloseable {
  private static final Pattern SERVING =
      Pattern.compile("at (http://\\S+/mcp) .* the token is in (\\S+)$");

  final URI endpoint;
  final String token;
  private final Process process;
  private final List<String> stderr = new CopyOnWriteArrayList<>();
  private final Set<ProcessHandle> descendants = ConcurrentHashMap.newKeySet();
  private final Thread reader;
  private final Thread watcher;

  HarnessHttpServer(Harness harness) throws IOException, InterruptedException {
    ProcessBuilder pb =
        harness.process(
            "mcp",
            "--http",
            "127.0.0.1:0",
            "--profile",
            "p",
            "--project",
            harness.project.toString());
    pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    // A file, not a pipe: what the server writes is there however its children hold the descriptor.
    Path errFile = Files.createTempFile(harness.tmp, "server-err-", ".txt");
    pb.redirectError(errFile.toFile());
    process = pb.start();
    CompletableFuture<Matcher> serving = new CompletableFuture<>();
    reader = new Thread(() -> read(errFile, serving), "harness-stderr");
    reader.setDaemon(true);
    reader.start();
    watcher =
        new Thread(
            () -> {
              while (process.isAlive()) {
                process.descendants().forEach(descendants::add);
                try {
                  Thread.sleep(20);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "harness-descendants");
    watcher.setDaemon(true);
    watcher.start();
    Matcher m;
    try {
      m = serving.get(120, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      throw new AssertionError(e.getCause() != null ? e.getCause() : e);
    }
    endpoint = URI.create(m.group(1));
    token = Files.readString(Path.of(m.group(2))).strip();
  }

  private void read(Path errFile, CompletableFuture<Matcher> serving) {
    try (BufferedReader r = Files.newBufferedReader(errFile, StandardCharsets.UTF_8)) {
      StringBuilder partial = new StringBuilder();
      boolean exited = false;
      while (true) {
        int c = r.read();
        if (c < 0) {
          if (exited) {
            break;
          }
          exited = !process.isAlive(); // one more pass after the exit, then done
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
    serving.completeExceptionally(
        new AssertionError("the server did not start: " + String.join("\n", stderr)));
  }

  /** Every line of the server's standard error so far. */
  String err() {
    return String.join("\n", stderr);
  }

  /**
   * SIGTERM, as a service manager stops it; its exit code. Then every process it started must be
   * gone within {@code grace}: those still running are killed and named in the failure.
   */
  int stop(Duration grace) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the server did not exit within 60 s of SIGTERM:\n" + err());
    }
    watcher.join();
    reader.join();
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline && descendants.stream().anyMatch(ProcessHandle::isAlive)) {
      Thread.sleep(50);
    }
    List<ProcessHandle> survivors = descendants.stream().filter(ProcessHandle::isAlive).toList();
    if (!survivors.isEmpty()) {
      survivors.forEach(ProcessHandle::destroyForcibly);
      throw new AssertionError(
          "still running after the server exited: "
              + survivors.stream()
                  .map(h -> h.pid() + " " + h.info().commandLine().orElse("?"))
                  .toList());
    }
    return process.exitValue();
  }

  /** How many processes the server has started so far. */
  int descendantsSeen() {
    return descendants.size();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    descendants.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }
}
